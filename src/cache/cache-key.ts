// The cache key of a call: the endpoint and its normalised parameters, in
// name order, so equal requests share one entry whatever their order or form.

/** `<endpoint name>\n<JSON of [name, value] pairs>`. */
export function cacheKey(endpointName: string, normalized: Readonly<Record<string, string>>): string {
  const names = Object.keys(normalized).sort();
  return `${endpointName}\n${JSON.stringify(names.map((name) => [name, normalized[name]]))}`;
}
