import { crc32 } from 'node:zlib';
import {
  BIGINT,
  BLOB,
  blobValue,
  type DuckDBBlobValue,
  type DuckDBConnection,
  DuckDBScalarFunction,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { keccak_256 } from '@noble/hashes/sha3.js';
import xxhash from 'xxhash-wasm';

/**
 * DuneSQL functions DuckDB has no counterpart for, computed in the engine process in JavaScript and
 * registered in every sandbox under their DuneSQL names, so the translation leaves calls to them
 * as they are. Each takes varbinary and is NULL on NULL, as on Trino and Dune:
 * - `keccak(varbinary) → varbinary`: Keccak-256 (Ethereum's hash, not SHA3-256), e.g. an event
 *   signature's topic0;
 * - `xxhash64(varbinary) → varbinary`: xxHash64 with seed 0, as Trino writes it: 8 bytes, big-endian;
 * - `crc32(varbinary) → bigint`: zlib's CRC-32.
 *
 * DuckDB calls them a chunk of rows (up to 2,048) at a time on the engine process's JavaScript
 * thread, which is idle while its query runs. On Athena, `xxhash64` and `crc32` are Trino's own;
 * `keccak` has no Athena counterpart (functions/dunesql/athena-target.ts).
 */
interface ByteFunction {
  name: string;
  returnType: DuckDBType;
  compute(bytes: Uint8Array): DuckDBValue;
}

let loaded: Promise<readonly ByteFunction[]> | undefined;

/** The functions, built once per process (xxHash64 is WebAssembly, instantiated asynchronously). */
function byteFunctions(): Promise<readonly ByteFunction[]> {
  loaded ??= xxhash().then(({ h64Raw }) => [
    { name: 'keccak', returnType: BLOB, compute: (bytes) => blobValue(keccak_256(bytes)) },
    {
      name: 'xxhash64',
      returnType: BLOB,
      compute: (bytes) => {
        const digest = new Uint8Array(8);
        new DataView(digest.buffer).setBigUint64(0, h64Raw(bytes));
        return blobValue(digest);
      },
    },
    { name: 'crc32', returnType: BIGINT, compute: (bytes) => BigInt(crc32(bytes)) },
  ]);
  return loaded;
}

/** Registers the functions in the connection's database (every connection of it sees them). */
export async function registerDuneFunctions(connection: DuckDBConnection): Promise<void> {
  for (const fn of await byteFunctions()) {
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: fn.name,
        returnType: fn.returnType,
        parameterTypes: [BLOB],
        mainFunction: (_info, input, output) => {
          const values = input.getColumnVector(0);
          for (let row = 0; row < input.rowCount; row++) {
            const value = values.getItem(row) as DuckDBBlobValue | null;
            output.setItem(row, value === null ? null : fn.compute(value.bytes));
          }
          output.flush();
        },
      }),
    );
  }
}
