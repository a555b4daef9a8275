import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';

/** An object held in memory or a file on disk (large results in benchmarks). */
type StoredObject = { bytes: Buffer } | { path: string; size: number };

/**
 * A mocked S3 client over an in-memory/disk object map that honours GetObject `Range`
 * (`bytes=start-end`, inclusive, as S3 does) and answers a missing key with NoSuchKey, the way
 * S3 does; bodies are real Node streams with the SDK's stream mixin, as in Lambda, arriving in
 * chunks of 1 MiB (`setChunkBytes`: small chunks put record boundaries anywhere).
 */
export function mockS3Objects(
  options: {
    /** Count multipart uploads' parts without keeping them (benchmarks of big uploads). */
    discardUploads?: boolean;
  } = {},
) {
  let chunkBytes = 1 << 20;
  const objects = new Map<string, StoredObject>();
  /** Multipart uploads in progress: their parts by number (or only their sizes, when discarded). */
  const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  let uploadedBytes = 0;
  const mock = mockClient(S3Client);
  const id = (bucket: string | undefined, key: string | undefined) => `${bucket}/${key}`;

  const install = () => {
    mock.on(GetObjectCommand).callsFake(async (input: { Bucket?: string; Key?: string; Range?: string }) => {
      const object = objects.get(id(input.Bucket, input.Key));
      if (!object) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
      const size = 'bytes' in object ? object.bytes.length : object.size;
      let start = 0;
      let end = size - 1;
      if (input.Range) {
        const match = /^bytes=(\d+)-(\d*)$/.exec(input.Range);
        if (!match) throw new Error(`Unsupported Range ${input.Range}`);
        start = Number(match[1]);
        end = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
      }
      const stream =
        'bytes' in object
          ? Readable.from(chunksOf(object.bytes.subarray(start, end + 1), chunkBytes))
          : createReadStream(object.path, { start, end, highWaterMark: chunkBytes });
      return {
        Body: sdkStreamMixin(stream),
        ContentLength: end - start + 1,
        ...(input.Range ? { ContentRange: `bytes ${start}-${end}/${size}` } : {}),
      };
    });
    mock.on(PutObjectCommand).callsFake(async (input: { Bucket?: string; Key?: string; Body?: unknown }) => {
      const body = input.Body;
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body as string | Uint8Array);
      uploadedBytes += bytes.length;
      objects.set(id(input.Bucket, input.Key), { bytes });
      return { ETag: '"etag"' };
    });
    // Multipart uploads (lib-storage's Upload past 5 MiB), completed into one object.
    mock.on(CreateMultipartUploadCommand).callsFake(async (input: { Bucket?: string; Key?: string }) => {
      const uploadId = `upload-${uploads.size + 1}-${Date.now()}`;
      uploads.set(uploadId, { key: id(input.Bucket, input.Key), parts: new Map() });
      return { UploadId: uploadId, Bucket: input.Bucket, Key: input.Key };
    });
    mock
      .on(UploadPartCommand)
      .callsFake(async (input: { UploadId?: string; PartNumber?: number; Body?: unknown }) => {
        const upload = uploads.get(input.UploadId ?? '');
        if (!upload) throw new Error(`No such upload ${input.UploadId}`);
        const body = Buffer.from(input.Body as Uint8Array);
        uploadedBytes += body.length;
        upload.parts.set(input.PartNumber ?? 0, options.discardUploads ? Buffer.alloc(0) : body);
        return { ETag: `"part-${input.PartNumber}"` };
      });
    mock.on(CompleteMultipartUploadCommand).callsFake(async (input: { UploadId?: string }) => {
      const upload = uploads.get(input.UploadId ?? '');
      if (!upload) throw new Error(`No such upload ${input.UploadId}`);
      uploads.delete(input.UploadId!);
      const parts = [...upload.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
      objects.set(upload.key, { bytes: Buffer.concat(parts) });
      return { ETag: '"multipart"' };
    });
    mock.on(AbortMultipartUploadCommand).callsFake(async (input: { UploadId?: string }) => {
      uploads.delete(input.UploadId ?? '');
      return {};
    });
    mock
      .on(CopyObjectCommand)
      .callsFake(async (input: { Bucket?: string; Key?: string; CopySource?: string }) => {
        const [bucket, ...key] = (input.CopySource ?? '').split('/');
        const source = objects.get(id(bucket, key.map(decodeURIComponent).join('/')));
        if (!source) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
        objects.set(id(input.Bucket, input.Key), source);
        return { CopyObjectResult: { ETag: '"copy"' } };
      });
    mock.on(DeleteObjectCommand).callsFake(async (input: { Bucket?: string; Key?: string }) => {
      objects.delete(id(input.Bucket, input.Key));
      return {};
    });
    mock
      .on(DeleteObjectsCommand)
      .callsFake(async (input: { Bucket?: string; Delete?: { Objects?: { Key?: string }[] } }) => {
        const deleted = (input.Delete?.Objects ?? []).map(({ Key }) => {
          objects.delete(id(input.Bucket, Key));
          return { Key };
        });
        return { Deleted: deleted };
      });
  };
  install();

  return {
    mock,
    client: new S3Client({ region: 'us-east-1' }),
    setChunkBytes(bytes: number) {
      chunkBytes = bytes;
    },
    put(bucket: string, key: string, bytes: Buffer | string) {
      objects.set(id(bucket, key), { bytes: Buffer.from(bytes) });
    },
    async putFile(bucket: string, key: string, path: string) {
      objects.set(id(bucket, key), { path, size: (await stat(path)).size });
    },
    has(bucket: string, key: string) {
      return objects.has(id(bucket, key));
    },
    /** An object's bytes (objects put or held in memory only). */
    bytes(bucket: string, key: string): Buffer | undefined {
      const object = objects.get(id(bucket, key));
      return object && 'bytes' in object ? object.bytes : undefined;
    },
    /** Bytes received by PutObject and UploadPart so far. */
    uploadedBytes: () => uploadedBytes,
    /** Multipart uploads started and neither completed nor aborted. */
    openUploads: () => uploads.size,
    /** Ranges requested with GetObject, in order. */
    ranges(): (string | undefined)[] {
      return mock.commandCalls(GetObjectCommand).map((call) => call.args[0].input.Range);
    },
    reset() {
      mock.reset();
      objects.clear();
      install();
    },
  };
}

function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
