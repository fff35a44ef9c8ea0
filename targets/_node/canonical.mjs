// Canonical JSON: object keys sorted (recursively), no whitespace. Two answers are "equal"
// when their canonical forms are equal: key order differs between servers legitimately
// (GraphQL orders keys by the selection set, but nothing downstream should rely on it).

export function canonicalJson(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}
