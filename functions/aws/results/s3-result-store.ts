import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type {
  ResultColumn,
  ResultPage,
  ResultPageRequest,
  ResultStore,
  ResultValue,
  SortKey,
} from '../../core/engine';
import { BadRequestError, NotFoundError } from '../../core/errors';
import {
  csvDocument,
  isValidExecutionId,
  projectedColumns,
  resolveColumn,
  validatePaging,
} from '../../core/result-encoding';
import { valueKind } from '../../core/sql-types';
import { type CsvRecord, CsvRecordScanner, CsvRecordStream, parseCsvRecords } from './athena-csv';
import {
  type AthenaColumn,
  compareRows,
  compileFilter,
  decodeValue,
  filterColumns,
  type KeyedRow,
  type RowPredicate,
  type SortSpec,
  sortKeys,
  storedBytes,
} from './athena-values';
import { BoundedHeap, rowHash, seededRandom } from './selection';

/** Where Athena wrote a query's CSV result. */
/** A query's CSV is past the run's result limit: it was deleted, not indexed. */
export class ResultLimitExceeded extends Error {
  constructor(readonly exceeded: 'rows' | 'bytes') {
    super(`The result is past its ${exceeded} limit.`);
    this.name = 'ResultLimitExceeded';
  }
}

export interface S3Location {
  bucket: string;
  key: string;
}

/**
 * What the store keeps next to an Athena result: its columns, row count and a sparse row index
 * (the byte offset of every `rowsPerEntry`-th row), so any page is one ranged GET.
 */
export interface ResultManifest {
  version: 1;
  columns: ResultColumn[];
  rowCount: number;
  bytes: number;
  csv: S3Location;
  rowsPerEntry: number;
  offsets: number[];
}

export interface S3ResultStoreOptions {
  /** Bucket of the manifests (the results bucket, whose lifecycle expires results). */
  bucket: string;
  manifestPrefix?: string;
  /** Rows between index entries (default 1,000): a page reads at most this many extra rows. */
  rowsPerEntry?: number;
  /** Index entries fetched per ranged GET when a request must scan the whole result (default 64). */
  entriesPerScanRead?: number;
  /** Sorted pages up to this depth keep a heap of offset+limit rows; deeper ones select in two passes. */
  sortHeapRows?: number;
  sampleSeed?: number;
  /**
   * Bytes of stored CSV one read may scan for `filters`/`sort_by` (default 2 GiB, about 11 s on one
   * vCPU): a read that would scan more is refused at once rather than cut off by API Gateway at 29 s.
   */
  maxScanBytes?: number;
}

const DEFAULT_MAX_SCAN_BYTES = 2 * 1024 ** 3;

interface Selected {
  rows: CsvRecord[];
  totalRowCount: number;
}

/**
 * The AWS result store: Athena writes each result as CSV in the results bucket (the one Athena
 * output format that keeps ORDER BY, see docs/aws.md); `register` indexes it once, and pages are
 * read with byte-range GETs, never loading the whole result. Filters, sorting and sampling stream
 * the result in bounded batches with the same semantics as the local store.
 */
export class S3ResultStore implements ResultStore {
  private readonly manifests = new Map<string, ResultManifest>();

  constructor(
    private readonly s3: S3Client,
    private readonly options: S3ResultStoreOptions,
  ) {}

  /**
   * Copies an earlier query's CSV that Athena reused for this execution to the execution's own
   * key (S3 copies it server-side), so deleting either execution's result never takes the other's.
   */
  async adopt(executionId: string, csv: S3Location): Promise<S3Location> {
    const own = {
      bucket: this.options.bucket,
      key: `${this.options.manifestPrefix ?? 'results/'}${executionId}.csv`,
    };
    await this.s3.send(
      new CopyObjectCommand({
        Bucket: own.bucket,
        Key: own.key,
        CopySource: `${csv.bucket}/${csv.key.split('/').map(encodeURIComponent).join('/')}`,
      }),
    );
    return own;
  }

  /**
   * Indexes a finished query's CSV (one pass: a row offset every `rowsPerEntry` rows) and stores
   * the manifest. A CSV past `limit` is refused before it is read whole (its size from GetObject's
   * Content-Length, its rows while scanning) and deleted: ResultLimitExceeded.
   */
  async register(
    executionId: string,
    csv: S3Location,
    columns: ResultColumn[],
    limit?: { maxResultRows: number; maxResultBytes: number },
  ): Promise<ResultManifest> {
    const rowsPerEntry = this.options.rowsPerEntry ?? 1000;
    const offsets: number[] = [];
    let records = 0;
    const scanner = new CsvRecordScanner((offset) => {
      // Record 0 is the header; row r is record r + 1.
      const row = records++;
      if (row % rowsPerEntry === 0) offsets.push(offset);
    });
    const response = await this.s3.send(new GetObjectCommand({ Bucket: csv.bucket, Key: csv.key }));
    const body = response.Body as AsyncIterable<Uint8Array> & { destroy?: () => void };
    let exceeded: 'rows' | 'bytes' | undefined =
      limit && (response.ContentLength ?? 0) > limit.maxResultBytes ? 'bytes' : undefined;
    if (!exceeded) {
      const tooManyRows = () => limit !== undefined && records > limit.maxResultRows;
      for await (const chunk of body) {
        scanner.push(chunk);
        if (tooManyRows()) break;
      }
      if (tooManyRows()) exceeded = 'rows';
    }
    if (exceeded) {
      body.destroy?.();
      await this.deleteCsv(csv);
      throw new ResultLimitExceeded(exceeded);
    }
    const manifest: ResultManifest = {
      version: 1,
      columns,
      rowCount: records,
      bytes: scanner.length,
      csv,
      rowsPerEntry,
      offsets,
    };
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.manifestKey(executionId),
        Body: JSON.stringify(manifest),
        ContentType: 'application/json',
      }),
    );
    this.manifests.set(executionId, manifest);
    return manifest;
  }

  async readPage(request: ResultPageRequest): Promise<ResultPage> {
    const { columns, projection, selected } = await this.read(request);
    let pageBytes = 0;
    const rows = selected.rows.map((record) => {
      const row: Record<string, ResultValue> = {};
      for (const [k, column] of projection.entries()) {
        const text = record[column] ?? null;
        pageBytes += storedBytes(text, columns[k]!.kind);
        row[columns[k]!.name] = decodeValue(text, columns[k]!.kind);
      }
      return row;
    });
    return {
      columns: columns.map(({ name, type }) => ({ name, type })),
      rows,
      totalRowCount: selected.totalRowCount,
      pageBytes,
    };
  }

  async readCsv(
    request: ResultPageRequest,
  ): Promise<{ csv: string; rowCount: number; totalRowCount: number }> {
    const { columns, projection, selected } = await this.read(request);
    const values = selected.rows.map((record) =>
      projection.map((column, k) => decodeValue(record[column] ?? null, columns[k]!.kind)),
    );
    return {
      csv: csvDocument(columns, values),
      rowCount: values.length,
      totalRowCount: selected.totalRowCount,
    };
  }

  /**
   * Every row of a stored result in stored order, decoded to text (null for NULL), in batches as
   * the one streaming GET delivers them: memory stays at a chunk and its rows.
   */
  async *records(executionId: string): AsyncGenerator<CsvRecord[]> {
    const manifest = await this.manifest(executionId);
    if (manifest.offsets.length === 0) return;
    const body = await this.rangeBody(manifest, 0, manifest.offsets.length);
    let batch: CsvRecord[] = [];
    const stream = new CsvRecordStream((record) => batch.push(record));
    for await (const chunk of body) {
      stream.push(chunk);
      if (batch.length > 0) yield batch;
      batch = [];
    }
    stream.end();
    if (batch.length > 0) yield batch;
  }

  async delete(executionId: string): Promise<void> {
    if (!isValidExecutionId(executionId)) return;
    const manifest = await this.manifest(executionId).catch((error) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    this.manifests.delete(executionId);
    const objects = [{ Key: this.manifestKey(executionId) }];
    const deletes: Promise<unknown>[] = [
      this.s3.send(new DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: objects } })),
    ];
    if (manifest) deletes.push(this.deleteCsv(manifest.csv));
    await Promise.all(deletes);
  }

  /** Athena writes `<id>.csv` and `<id>.csv.metadata` side by side. */
  private async deleteCsv({ bucket, key }: S3Location): Promise<void> {
    await this.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: [{ Key: key }, { Key: `${key}.metadata` }] },
      }),
    );
  }

  private manifestKey(executionId: string): string {
    return `${this.options.manifestPrefix ?? 'results/'}${executionId}.json`;
  }

  private async manifest(executionId: string): Promise<ResultManifest> {
    const cached = this.manifests.get(executionId);
    if (cached) return cached;
    if (!isValidExecutionId(executionId)) {
      throw new NotFoundError(`No result for execution ${JSON.stringify(executionId)}`);
    }
    let text: string;
    try {
      const response = await this.s3.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.manifestKey(executionId) }),
      );
      text = await response.Body!.transformToString();
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') {
        throw new NotFoundError(`No stored result for execution ${executionId}`, { cause: error });
      }
      throw error;
    }
    const manifest = JSON.parse(text) as ResultManifest;
    if (this.manifests.size >= 256) this.manifests.delete(this.manifests.keys().next().value!);
    this.manifests.set(executionId, manifest);
    return manifest;
  }

  private async read(request: ResultPageRequest) {
    validatePaging(request);
    const manifest = await this.manifest(request.executionId);
    const all: AthenaColumn[] = manifest.columns.map((column) => ({
      ...column,
      kind: valueKind(column.type),
    }));
    const chosen = request.columns ? projectedColumns(all, request.columns) : all;
    const projection = chosen.map((column) => all.indexOf(column));
    const predicate = request.filters ? compileFilter(request.filters, all) : undefined;
    const sort = request.sortBy ? sortSpec(all, request.sortBy) : undefined;
    // A scan decodes only what it tests or orders by; kept rows are decoded whole.
    const wanted = all.map(() => false);
    for (const i of request.filters ? filterColumns(request.filters, all) : []) wanted[i] = true;
    for (const i of sort?.indexes ?? []) wanted[i] = true;
    if (request.sampleCount === undefined && (sort || predicate)) {
      // A deep sorted page reads the result twice (sample pass, then the bracketed pass).
      const deep =
        sort !== undefined && request.offset + request.limit > (this.options.sortHeapRows ?? 50_000);
      this.checkScanBudget(manifest, deep ? 2 : 1, sort ? 'sort_by' : 'filters');
    }
    let selected: Selected;
    if (request.sampleCount !== undefined) selected = await this.sample(manifest, request.sampleCount, sort);
    else if (sort) selected = await this.sorted(manifest, request, wanted, sort, predicate);
    else if (predicate) selected = await this.filtered(manifest, request, wanted, predicate);
    else
      selected = {
        rows: await this.slice(manifest, request.offset, request.limit),
        totalRowCount: manifest.rowCount,
      };
    return { columns: chosen, projection, selected };
  }

  private checkScanBudget(manifest: ResultManifest, passes: number, what: string): void {
    const max = this.options.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES;
    if (manifest.bytes * passes <= max) return;
    const mib = (bytes: number) => `${Math.ceil(bytes / 1024 ** 2).toLocaleString('en-US')} MiB`;
    throw new BadRequestError(
      `${what} on this result would scan ${mib(manifest.bytes * passes)} of stored rows (${manifest.rowCount.toLocaleString('en-US')} rows), ` +
        `more than the ${mib(max)} one request may scan: filter and order in the query's SQL and run it again, ` +
        'or read this result in pages without filters/sort_by',
    );
  }

  /** Rows [offset, offset + limit) in stored order: one ranged GET of whole index entries. */
  private async slice(manifest: ResultManifest, offset: number, limit: number): Promise<CsvRecord[]> {
    const end = Math.min(offset + limit, manifest.rowCount);
    if (offset >= end) return [];
    const first = Math.floor(offset / manifest.rowsPerEntry);
    const last = Math.ceil(end / manifest.rowsPerEntry);
    const rows: CsvRecord[] = [];
    let row = first * manifest.rowsPerEntry;
    parseCsvRecords(await this.range(manifest, first, last), (record) => {
      if (row >= offset && row < end) rows.push(record);
      row++;
    });
    return rows;
  }

  /** The bytes of index entries [first, last): whole records only. */
  private async range(manifest: ResultManifest, first: number, last: number): Promise<Uint8Array> {
    const response = await this.s3.send(this.rangeCommand(manifest, first, last));
    return response.Body!.transformToByteArray();
  }

  private rangeCommand(manifest: ResultManifest, first: number, last: number): GetObjectCommand {
    const start = manifest.offsets[first]!;
    const stop = last < manifest.offsets.length ? manifest.offsets[last]! : manifest.bytes;
    return new GetObjectCommand({
      Bucket: manifest.csv.bucket,
      Key: manifest.csv.key,
      Range: `bytes=${start}-${stop - 1}`,
    });
  }

  /** The body stream of index entries [first, last), for scans. */
  private async rangeBody(manifest: ResultManifest, first: number, last: number) {
    const response = await this.s3.send(this.rangeCommand(manifest, first, last));
    return response.Body as AsyncIterable<Uint8Array>;
  }

  /**
   * Visits every row in stored order (or the rows of the given index entries), streaming each
   * ranged GET's body with the next GETs already in flight. Only the `wanted` columns are
   * decoded; `full()` decodes the row entirely for the rows a read keeps.
   */
  private async scan(
    manifest: ResultManifest,
    wanted: readonly boolean[],
    visit: (record: CsvRecord, row: number, full: () => CsvRecord) => void,
    entries?: number[],
  ): Promise<void> {
    const batch = this.options.entriesPerScanRead ?? 64;
    const starts: number[] = [];
    if (entries) {
      for (const entry of entries) if (starts.at(-1) !== entry) starts.push(entry);
    } else {
      for (let entry = 0; entry < manifest.offsets.length; entry += batch) starts.push(entry);
    }
    const width = entries ? 1 : batch;
    // Whole-result scans read big ranges, two at a time; single entries are small and latency-bound.
    const depth = entries ? 8 : 2;
    const fetch = (i: number) => {
      const first = starts[i]!;
      return this.rangeBody(manifest, first, Math.min(first + width, manifest.offsets.length));
    };
    const inFlight: Promise<AsyncIterable<Uint8Array>>[] = [];
    for (let i = 0; i < Math.min(depth, starts.length); i++) inFlight.push(fetch(i));
    for (let i = 0; i < starts.length; i++) {
      const body = await inFlight.shift()!;
      if (i + depth < starts.length) inFlight.push(fetch(i + depth));
      let row = starts[i]! * manifest.rowsPerEntry;
      const stream = new CsvRecordStream((record, full) => visit(record, row++, full), wanted);
      for await (const chunk of body) stream.push(chunk);
      stream.end();
    }
  }

  private async filtered(
    manifest: ResultManifest,
    request: ResultPageRequest,
    wanted: readonly boolean[],
    predicate: RowPredicate,
  ): Promise<Selected> {
    const rows: CsvRecord[] = [];
    let matches = 0;
    const end = request.offset + request.limit;
    await this.scan(manifest, wanted, (record, _row, full) => {
      if (!predicate(record)) return;
      if (matches >= request.offset && matches < end) rows.push(full());
      matches++;
    });
    return { rows, totalRowCount: matches };
  }

  private async sorted(
    manifest: ResultManifest,
    request: ResultPageRequest,
    wanted: readonly boolean[],
    spec: SortSpec,
    predicate?: RowPredicate,
  ): Promise<Selected> {
    const compare = (a: KeyedRow, b: KeyedRow) => compareRows(a, b, spec);
    const end = request.offset + request.limit;
    if (end <= (this.options.sortHeapRows ?? 50_000)) {
      // The first `end` rows in sort order: a max-heap of that size.
      const heap = new BoundedHeap<KeyedRow>(end, compare);
      let matches = 0;
      await this.scan(manifest, wanted, (record, rowNumber, full) => {
        if (predicate && !predicate(record)) return;
        matches++;
        const keyed = { keys: sortKeys(record, spec), rowNumber, record };
        if (!heap.accepts(keyed)) return;
        keyed.record = full();
        heap.offer(keyed);
      });
      const rows = heap
        .sorted()
        .slice(request.offset, end)
        .map((row) => row.record);
      return { rows, totalRowCount: matches };
    }
    return this.selectDeep(manifest, request, wanted, spec, compare, predicate);
  }

  /**
   * A deep sorted page with bounded memory: a first pass draws a uniform sample of sort keys and
   * counts the rows; two sample keys bracket the wanted ranks; a second pass counts the rows
   * below the lower bracket and keeps only those between the brackets. Brackets that miss
   * (unlikely) are widened and the second pass repeated.
   */
  private async selectDeep(
    manifest: ResultManifest,
    request: ResultPageRequest,
    wanted: readonly boolean[],
    spec: SortSpec,
    compare: (a: KeyedRow, b: KeyedRow) => number,
    predicate?: RowPredicate,
  ): Promise<Selected> {
    const sampleSize = 16_384;
    const random = seededRandom(this.options.sampleSeed ?? 42);
    const sample: KeyedRow[] = [];
    let matches = 0;
    await this.scan(manifest, wanted, (record, rowNumber) => {
      if (predicate && !predicate(record)) return;
      matches++;
      const keyed = { keys: sortKeys(record, spec), rowNumber, record: [] };
      if (sample.length < sampleSize) sample.push(keyed);
      else {
        const slot = Math.floor(random() * matches);
        if (slot < sampleSize) sample[slot] = keyed;
      }
    });
    const start = request.offset;
    const end = Math.min(request.offset + request.limit, matches);
    if (start >= end) return { rows: [], totalRowCount: matches };
    sample.sort(compare);
    for (let margin = 64; ; margin *= 4) {
      const lowIndex = Math.floor((start / matches) * sample.length) - margin;
      const highIndex = Math.ceil((end / matches) * sample.length) + margin;
      const low = lowIndex > 0 ? sample[lowIndex] : undefined;
      const high = highIndex < sample.length ? sample[highIndex] : undefined;
      let below = 0;
      const kept: KeyedRow[] = [];
      await this.scan(manifest, wanted, (record, rowNumber, full) => {
        if (predicate && !predicate(record)) return;
        const keyed = { keys: sortKeys(record, spec), rowNumber, record };
        if (low && compare(keyed, low) < 0) below++;
        else if (!high || compare(keyed, high) <= 0) {
          keyed.record = full();
          kept.push(keyed);
        }
      });
      if (below <= start && below + kept.length >= end) {
        kept.sort(compare);
        return {
          rows: kept.slice(start - below, end - below).map((row) => row.record),
          totalRowCount: matches,
        };
      }
    }
  }

  /** `sample_count`: the rows with the smallest seeded hash of their position (as locally). */
  private async sample(manifest: ResultManifest, count: number, spec?: SortSpec): Promise<Selected> {
    const seed = this.options.sampleSeed ?? 42;
    const heap = new BoundedHeap<{ hash: number; row: number }>(
      Math.min(count, manifest.rowCount),
      (a, b) => a.hash - b.hash || a.row - b.row,
    );
    for (let row = 0; row < manifest.rowCount; row++) heap.offer({ hash: rowHash(row, seed), row });
    const wanted = new Set(heap.sorted().map((entry) => entry.row));
    const entries = [...wanted].map((row) => Math.floor(row / manifest.rowsPerEntry)).sort((a, b) => a - b);
    const picked: KeyedRow[] = [];
    await this.scan(
      manifest,
      [],
      (_record, rowNumber, full) => {
        if (wanted.has(rowNumber)) {
          const record = full();
          picked.push({ keys: spec ? sortKeys(record, spec) : [], rowNumber, record });
          wanted.delete(rowNumber);
        }
      },
      entries,
    );
    if (spec) picked.sort((a, b) => compareRows(a, b, spec));
    return { rows: picked.map((row) => row.record), totalRowCount: manifest.rowCount };
  }
}

function sortSpec(columns: AthenaColumn[], keys: SortKey[]): SortSpec {
  const resolved = keys.map((key) => resolveColumn(columns, key.column, 'sort_by'));
  return {
    indexes: resolved.map((column) => columns.indexOf(column)),
    kinds: resolved.map((column) => column.kind),
    descending: keys.map((key) => key.direction === 'desc'),
  };
}
