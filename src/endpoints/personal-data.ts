// The personal data of a saved query's rows, read from the
// `(endpoints.v1.personal)` options of its row fields, and the start-up check
// of the marks and of an SQL that masks them: it reads the service's
// {unmasked:UInt8} only for a row with marked fields, and names every marked
// JSON key. (That each saved query of `sql/` whose row has marked fields
// masks them is checked by test/unit/personal-data.test.ts.)
import { type DescField, type DescMessage, getOption, hasOption, ScalarType } from "@bufbuild/protobuf";
import { personal as personalOption } from "../gen/endpoints/v1/endpoint_options_pb.js";
import { sqlStringLiterals } from "./definition-checks.js";
import { placeholdersOf } from "./sql-placeholders.js";

/** A row field marked as holding personal data (docs/credentials.md#personal-data). */
export interface PersonalField {
  name: string;
  /** Its text may hold IP addresses. */
  addresses: boolean;
  /** Keys of its JSON whose scalar values are personal, at any depth. */
  keys: readonly string[];
}

/** The placeholder a masking SQL reads, and its one type. */
const unmaskedPlaceholder = { name: "unmasked", type: "UInt8" } as const;

/** The fields of `row` marked `(endpoints.v1.personal)`, in field order. */
export function personalFieldsOf(row: DescMessage): PersonalField[] {
  return row.fields
    .filter((field) => hasOption(field, personalOption))
    .map((field) => {
      const { addresses, keys } = getOption(field, personalOption);
      return { name: field.name, addresses, keys };
    });
}

/** Whether `sql` reads the service's `{unmasked}`: its result then depends on the caller's credential. */
export function readsUnmasked(sql: string): boolean {
  return placeholdersOf(sql).some((p) => p.name === unmaskedPlaceholder.name);
}

/**
 * What is wrong with the personal data marked on `row` and the SQL of
 * `endpointName` that masks it, or nothing. A mark names addresses or keys;
 * keys are marked on JSON fields only, in letters, digits, `_` and `-` (so
 * that the SQL can name them in a pattern). An SQL reading `{unmasked}`
 * reads it as UInt8, only for a row with marked fields (else it would split
 * the cache for nothing), and names each marked key in one of its quoted
 * literals, so that a key added to `proto/` alone stops start-up.
 */
export function personalDataProblems(endpointName: string, sql: string, row: DescMessage): string[] {
  const marked = personalFieldsOf(row);
  const unmasked = placeholdersOf(sql).find((p) => p.name === unmaskedPlaceholder.name);
  const problems: string[] = [];
  if (unmasked !== undefined && marked.length === 0)
    problems.push(`${endpointName}: the SQL reads {unmasked} but no field of ${row.typeName} is marked personal`);
  if (unmasked !== undefined && unmasked.type !== unmaskedPlaceholder.type)
    problems.push(`${endpointName}: {unmasked} must be UInt8, not ${unmasked.type}`);
  const literals = unmasked === undefined ? undefined : [...sqlStringLiterals(sql)];
  for (const field of marked) {
    const where = `${endpointName}: personal field ${field.name}`;
    const descriptor = row.fields.find((f) => f.name === field.name)!;
    if (!field.addresses && field.keys.length === 0) problems.push(`${where} marks neither addresses nor keys`);
    if (field.addresses && !isText(descriptor) && !isJson(descriptor))
      problems.push(`${where} marks addresses but is not text`);
    if (field.keys.length > 0 && !isJson(descriptor))
      problems.push(`${where} marks JSON keys but is not a google.protobuf.Struct`);
    for (const key of field.keys) {
      if (!/^[A-Za-z0-9_-]+$/.test(key)) problems.push(`${where}: key "${key}" must be letters, digits, _ or -`);
      else if (literals !== undefined && !literals.some((literal) => namesKey(literal, key)))
        problems.push(
          `${where}: key "${key}" does not appear in a quoted literal of the SQL, so it would not be masked`,
        );
    }
  }
  return problems;
}

/** Whether `literal` holds `key` as a whole name, not as part of a longer one. */
function namesKey(literal: string, key: string): boolean {
  for (let at = literal.indexOf(key); at >= 0; at = literal.indexOf(key, at + 1)) {
    const before = literal[at - 1];
    const after = literal[at + key.length];
    if (!isNameCharacter(before) && !isNameCharacter(after)) return true;
  }
  return false;
}

function isNameCharacter(character: string | undefined): boolean {
  return character !== undefined && /[A-Za-z0-9_-]/.test(character);
}

function isText(field: DescField): boolean {
  return field.fieldKind === "scalar" && field.scalar === ScalarType.STRING;
}

function isJson(field: DescField): boolean {
  const message =
    field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")
      ? field.message
      : undefined;
  return message?.typeName === "google.protobuf.Struct";
}
