/**
 * Trino's two date format languages, rewritten to DuckDB's strftime/strptime codes at translation
 * time (the format must be a literal): Joda-Time patterns (`format_datetime`, `parse_datetime`) and
 * MySQL codes (`date_format`, `date_parse`).
 */

const JODA: Record<string, string> = {
  yyyy: '%Y',
  yy: '%y',
  y: '%Y',
  YYYY: '%Y',
  MMMM: '%B',
  MMM: '%b',
  MM: '%m',
  M: '%-m',
  dd: '%d',
  d: '%-d',
  DDD: '%j',
  HH: '%H',
  H: '%-H',
  hh: '%I',
  h: '%-I',
  mm: '%M',
  m: '%-M',
  ss: '%S',
  s: '%-S',
  SSS: '%g',
  SSSSSS: '%f',
  a: '%p',
  EEEE: '%A',
  EEE: '%a',
  E: '%a',
  Z: '%z',
  ZZ: '%z',
  z: '%Z',
};

/** Joda-Time pattern → strftime, or undefined when it uses a letter this mapping does not know. */
export function jodaToStrftime(pattern: string): string | undefined {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      const close = pattern.indexOf("'", i + 1);
      const text = close < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, close);
      out += text === '' ? "'" : text.replaceAll('%', '%%');
      i = close < 0 ? pattern.length : close + 1;
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      const code = JODA[pattern.slice(i, j)];
      if (!code) return undefined;
      out += code;
      i = j;
      continue;
    }
    out += c === '%' ? '%%' : c;
    i++;
  }
  return out;
}

const MYSQL: Record<string, string> = {
  a: '%a',
  b: '%b',
  c: '%-m',
  d: '%d',
  e: '%-d',
  f: '%f',
  H: '%H',
  h: '%I',
  I: '%I',
  i: '%M',
  j: '%j',
  k: '%-H',
  l: '%-I',
  M: '%B',
  m: '%m',
  p: '%p',
  r: '%I:%M:%S %p',
  S: '%S',
  s: '%S',
  T: '%H:%M:%S',
  W: '%A',
  Y: '%Y',
  y: '%y',
  '%': '%%',
};

/** MySQL date format (Trino's date_format/date_parse) → strftime, or undefined for unknown codes. */
export function mysqlToStrftime(pattern: string): string | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const code = MYSQL[pattern[i + 1] ?? ''];
    if (!code) return undefined;
    out += code;
    i++;
  }
  return out;
}

/**
 * Teradata format specifiers (Trino's to_char, to_timestamp, to_date) → strftime codes. Trino's
 * lexer (trinodb/trino plugin/trino-teradata-functions, DateFormatParser) knows these lower-case
 * specifiers and takes punctuation (`- / , . ; :`) and whitespace as literal text; anything else,
 * upper case included, fails there ("Failed to tokenize string"): Trino's documentation
 * (functions/teradata) warns that "all specifiers must be lowercase". `hh` is Joda's hour of the
 * half day, 0-11, which no strftime code prints: it becomes `%I` (1-12, read alike when parsing),
 * and to_char prints that hour itself (duckdb-target.ts).
 */
const TERADATA: [string, string][] = [
  ['yyyy', '%Y'],
  ['yy', '%y'],
  ['mm', '%m'],
  ['dd', '%d'],
  ['hh24', '%H'],
  ['hh', '%I'],
  ['mi', '%M'],
  ['ss', '%S'],
];

/** Teradata format → strftime, or undefined for what Trino's Teradata functions refuse. */
export function teradataToStrftime(pattern: string): string | undefined {
  let out = '';
  let i = 0;
  outer: while (i < pattern.length) {
    for (const [specifier, code] of TERADATA) {
      if (pattern.startsWith(specifier, i)) {
        out += code;
        i += specifier.length;
        continue outer;
      }
    }
    if (!/[-/,.;:\s]/.test(pattern[i]!)) return undefined;
    out += pattern[i];
    i++;
  }
  return out;
}
