import { distance } from 'fastest-levenshtein';

/**
 * The closest names to one that does not exist (a table, a column, a view), for the error that
 * refuses it: the most common mistake in SQL written from memory, by people and agents alike.
 */

/** At most this many names are suggested. */
const SUGGESTIONS = 3;

/**
 * ` Did you mean a, b or c?` for the names closest to `written`: first `preferred` (the same
 * table in other schemas), then names a few edits away or that contain it or are contained in it.
 */
export function didYouMean(
  written: string,
  preferred: readonly string[],
  candidates: readonly string[],
): string {
  const bare = written.split('.').at(-1)!;
  // Edits allowed grow with the name itself, not with the schema in front of it.
  const tolerance = Math.max(1, Math.floor(bare.length / 3));
  const close = candidates
    .map((candidate) => ({ candidate, edits: distance(written, candidate) }))
    .filter(
      ({ candidate, edits }) =>
        // A name every letter of which differs (`z` for `a`) is no suggestion.
        (edits <= tolerance && edits < written.length) ||
        (bare.length >= 3 && candidate.split('.').at(-1)!.includes(bare)) ||
        (candidate.split('.').at(-1)!.length >= 3 && bare.includes(candidate.split('.').at(-1)!)),
    )
    .sort((a, b) => a.edits - b.edits || a.candidate.localeCompare(b.candidate))
    .map(({ candidate }) => candidate);
  const names = [...new Set([...preferred, ...close])]
    .filter((name) => name !== written)
    .slice(0, SUGGESTIONS);
  if (names.length === 0) return '';
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return ` Did you mean ${listed}?`;
}
