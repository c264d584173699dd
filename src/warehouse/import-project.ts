// Whether an imported row belongs to the one project a caller may import:
// the project of the row (its column, or the field of its metadata that the
// table reads it from), and for `edge_logs` the host of its request URL,
// which usage.api-counts matches its project pattern against.
import type { RowOwner } from "./log-line.js";

/** What is wrong with a row of `owner` imported by a caller fixed to `project`; undefined: nothing. */
export function foreignRowProblem(owner: RowOwner, project: string): string | undefined {
  if (owner.project !== project)
    return `${owner.field} must be ${project}, the project the credential fixes (not ${owner.project})`;
  if (owner.url !== undefined && urlProject(owner.url) !== project.toLowerCase())
    return `metadata[0].request[0].url must be on the project's own host (https://${project}.…), the project the credential fixes`;
  return undefined;
}

/** The first label of a URL's host (`abc` of `https://abc.supabase.co/rest`), or undefined when not a URL. */
function urlProject(url: string): string | undefined {
  try {
    return new URL(url).hostname.split(".")[0];
  } catch {
    return undefined;
  }
}
