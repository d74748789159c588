/** One pseudonym of a run and the real value behind it. */
export interface PseudonymEntry {
  token: string;
  kind: string;
  value: string;
}

/** A pseudonym as the model sees it: `<email:k3f2a>`. */
export const PSEUDONYM_PATTERN = /<([a-z][a-z0-9_]{0,23}):([a-z2-7]{5,13})>/g;

/** `text` with every pseudonym found in `entries` replaced by its value; others are left as they are. */
export function revealText(text: string, entries: ReadonlyMap<string, PseudonymEntry>): string {
  return text.replace(PSEUDONYM_PATTERN, (token) => entries.get(token)?.value ?? token);
}
