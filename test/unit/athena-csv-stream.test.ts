import { describe, expect, it } from 'vitest';
import { type CsvRecord, CsvRecordStream, parseCsvRecords } from '../../functions/aws/results/athena-csv';

/** Athena's CSV forms in a few records: quotes doubled, separators and line breaks inside quotes, NULL, '', CRLF. */
const CSV = Buffer.from(
  ['"1","a,b ""q""",,"x"\n', '"2","","line\nbreak",""""\n', '"3",,"é ü 💥",\r\n', '"4","""","end",'].join(''),
);

function parsedWhole(): CsvRecord[] {
  const records: CsvRecord[] = [];
  parseCsvRecords(CSV, (record) => records.push(record));
  return records;
}

function streamed(chunks: Buffer[], wanted?: boolean[]): { seen: CsvRecord[]; full: CsvRecord[] } {
  const seen: CsvRecord[] = [];
  const full: CsvRecord[] = [];
  const stream = new CsvRecordStream((record, decodeAll) => {
    seen.push(record);
    full.push(decodeAll());
  }, wanted);
  for (const chunk of chunks) stream.push(chunk);
  stream.end();
  return { seen, full };
}

describe('CsvRecordStream (a ranged GET body parsed chunk by chunk)', () => {
  it('parses the same records wherever the chunks split them', () => {
    const whole = parsedWhole();
    expect(whole).toEqual([
      ['1', 'a,b "q"', null, 'x'],
      ['2', '', 'line\nbreak', '"'],
      ['3', null, 'é ü 💥', null],
      ['4', '"', 'end', null],
    ]);
    for (let cut = 0; cut <= CSV.length; cut++) {
      const { seen, full } = streamed([CSV.subarray(0, cut), CSV.subarray(cut)]);
      expect(seen, `cut at ${cut}`).toEqual(whole);
      expect(full, `cut at ${cut}`).toEqual(whole);
    }
    for (let size = 1; size <= 8; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < CSV.length; i += size) chunks.push(CSV.subarray(i, i + size));
      expect(streamed(chunks).seen, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('decodes only the wanted fields, and the whole record on demand', () => {
    const whole = parsedWhole();
    for (let cut = 0; cut <= CSV.length; cut++) {
      const { seen, full } = streamed([CSV.subarray(0, cut), CSV.subarray(cut)], [false, true]);
      expect(seen).toEqual(whole.map((record) => record.map((value, i) => (i === 1 ? value : null))));
      expect(full).toEqual(whole);
    }
  });

  it('refuses a malformed body', () => {
    expect(() => streamed([Buffer.from('"1","open\n')])).toThrow(/unterminated quoted field/);
    expect(() => streamed([Buffer.from('"1"x,"2"\n')])).toThrow(/unexpected byte/);
  });
});
