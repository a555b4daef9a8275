/**
 * Athena's query result files: RFC 4180 CSV with a header line, "\n" line ends, values in double
 * quotes (a doubled quote inside), NULL as an empty unquoted field and '' as "" (docs/aws.md).
 * Parsing works on bytes: the delimiters are ASCII, so they never occur inside UTF-8 sequences.
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/** A parsed record: text per field, `null` for an empty unquoted field. */
export type CsvRecord = (string | null)[];

/**
 * Finds where records start, streaming: feed chunks in order; `onRecordStart` gets the absolute
 * byte offset of each record after the first. A line break inside quotes is data; a doubled
 * quote toggles twice, so counting quotes is enough.
 */
export class CsvRecordScanner {
  private inQuotes = false;
  private position = 0;
  private pendingStart = false;

  constructor(private readonly onRecordStart: (offset: number) => void) {}

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let i = 0;
    if (this.pendingStart && bytes.length > 0) {
      this.pendingStart = false;
      this.onRecordStart(this.position);
    }
    while (i < bytes.length) {
      if (this.inQuotes) {
        const close = bytes.indexOf(QUOTE, i);
        if (close < 0) break;
        this.inQuotes = false;
        i = close + 1;
        continue;
      }
      const quote = bytes.indexOf(QUOTE, i);
      const lineEnd = bytes.indexOf(LF, i);
      if (lineEnd >= 0 && (quote < 0 || lineEnd < quote)) {
        i = lineEnd + 1;
        if (i < bytes.length) this.onRecordStart(this.position + i);
        else this.pendingStart = true;
        continue;
      }
      if (quote < 0) break;
      this.inQuotes = true;
      i = quote + 1;
    }
    this.position += bytes.length;
  }

  /** Total bytes seen. */
  get length(): number {
    return this.position;
  }
}

/** Parses whole records (the slice must start at a record start and end after a line end). */
export function parseCsvRecords(bytes: Uint8Array, visit: (record: CsvRecord) => void): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  parseRecordsFrom(buffer, 0, true, undefined, (record) => visit(record));
}

/**
 * Parses a stream of whole records that arrives in chunks of any size (a ranged GET's body), so a
 * scan never holds more than a chunk and one partial record. Only the `wanted` fields are decoded
 * (the others read as `null`); `full()` decodes the current record entirely, for the few rows a
 * scan keeps.
 */
export class CsvRecordStream {
  private carry: Buffer | undefined;

  constructor(
    private readonly visit: (record: CsvRecord, full: () => CsvRecord) => void,
    private readonly wanted?: readonly boolean[],
  ) {}

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const buffer = this.carry ? Buffer.concat([this.carry, bytes]) : bytes;
    const consumed = parseRecordsFrom(buffer, 0, false, this.wanted, this.visit);
    // Copy the unparsed tail: keeping a subarray would pin the whole chunk.
    this.carry = consumed < buffer.length ? Buffer.from(buffer.subarray(consumed)) : undefined;
  }

  /** The stream ended: what is left is the last record. */
  end(): void {
    if (this.carry) parseRecordsFrom(this.carry, 0, true, this.wanted, this.visit);
    this.carry = undefined;
  }
}

/** Thrown inside the parser when a non-final buffer ends mid-record. */
const INCOMPLETE = Symbol('incomplete record');

/**
 * Parses records from `from`; returns the offset after the last whole record. When `final`, the
 * buffer ends the data, so a record without a line end is whole too.
 */
function parseRecordsFrom(
  buffer: Buffer,
  from: number,
  final: boolean,
  wanted: readonly boolean[] | undefined,
  visit: (record: CsvRecord, full: () => CsvRecord) => void,
  maxRecords = Number.POSITIVE_INFINITY,
): number {
  const length = buffer.length;
  let records = 0;
  let i = from;
  let recordStart = from;
  let record: CsvRecord = [];
  const full = () => {
    const whole: CsvRecord[] = [];
    parseRecordsFrom(buffer, recordStart, true, undefined, (r) => whole.push(r), 1);
    return whole[0]!;
  };
  try {
    while (i < length) {
      const decode = wanted === undefined || wanted[record.length] === true;
      let value: string | null = null;
      if (buffer[i] === QUOTE) {
        let text = '';
        let start = i + 1;
        for (;;) {
          const close = buffer.indexOf(QUOTE, start);
          if (close < 0) {
            if (final) throw new Error('Malformed CSV: unterminated quoted field');
            throw INCOMPLETE;
          }
          if (decode) text += buffer.toString('utf8', start, close);
          if (buffer[close + 1] === QUOTE) {
            if (decode) text += '"';
            start = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        value = decode ? text : null;
      } else {
        let end = i;
        while (end < length && buffer[end] !== COMMA && buffer[end] !== LF) end++;
        let stop = end;
        if (stop > i && buffer[stop - 1] === CR) stop--;
        value = stop === i || !decode ? null : buffer.toString('utf8', i, stop);
        i = end;
      }
      if (buffer[i] === CR) i++;
      if (i >= length && !final) throw INCOMPLETE;
      record.push(value);
      if (i >= length || buffer[i] === LF) {
        visit(record, full);
        record = [];
        i++;
        recordStart = i;
        if (++records >= maxRecords) return i;
      } else if (buffer[i] === COMMA) {
        i++;
      } else {
        throw new Error(`Malformed CSV: unexpected byte ${buffer[i]} after a field`);
      }
    }
  } catch (error) {
    if (error === INCOMPLETE) return recordStart;
    throw error;
  }
  // The slice ended right after a comma: the last field is empty.
  if (record.length > 0) {
    if (!final) return recordStart;
    record.push(null);
    visit(record, full);
  }
  return length;
}
