import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PayloadTooLargeError } from '../core/errors';
import { routeHandler } from '../http/route-handler';
import {
  createdUploadResponse,
  createdUploadResponseOf,
  csvUploadResponse,
  csvUploadResponseOf,
  insertedRowsResponse,
  insertedRowsResponseOf,
  messageResponse,
  uploadListResponse,
  uploadListResponseOf,
} from './presenter';
import { createUploadBody, listUploadsQuery, uploadCsvBody, uploadPath } from './schemas';
import * as uploads from './use-cases';

/**
 * The largest body an insert or CSV upload takes: a Lambda function's synchronous request payload
 * is at most 6 MB, event included (docs/aws.md, "Uploads"). Larger data goes in several inserts.
 */
export const MAX_UPLOAD_BODY_BYTES = 5 * 1024 * 1024;

export const createUpload = routeHandler(
  {
    idempotent: true,
    body: createUploadBody,
    docs: {
      summary: 'Create an empty uploaded table, dune.<namespace>.<table_name>, with its columns',
      response: createdUploadResponse,
      errors: [402, 403, 409],
    },
  },
  async ({ services, account, body }) => {
    const { table, alreadyExisted } = await uploads.createUpload(services, account, body);
    return createdUploadResponseOf(table, alreadyExisted);
  },
);

export const uploadCsv = routeHandler(
  {
    idempotent: true,
    body: uploadCsvBody,
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    docs: {
      summary:
        'Create (or replace) the table dune.<handle>.dataset_<table_name> from one CSV, its column types inferred',
      response: csvUploadResponse,
      errors: [402, 409],
    },
  },
  async ({ services, account, body }) => {
    const written = await uploads.uploadCsv(services, account, body);
    return csvUploadResponseOf(written.table, written);
  },
);

export const insertIntoUpload = routeHandler(
  {
    idempotent: true,
    path: uploadPath,
    docs: {
      summary: 'Append rows (text/csv with a header row, or application/x-ndjson), all or none',
      consumes: ['text/csv', 'application/x-ndjson'],
      response: insertedRowsResponse,
      errors: [402, 403, 409],
    },
  },
  async ({ services, account, path, event }) => {
    const format = uploads.uploadFormatOf(event.headers['content-type']);
    const written = await uploads.insertRows(services, account, path, rawBody(event), format);
    return insertedRowsResponseOf(written.table, written);
  },
);

export const clearUpload = routeHandler(
  {
    path: uploadPath,
    docs: {
      summary: 'Remove every row of an uploaded table (its columns stay)',
      response: messageResponse,
      errors: [403, 409],
    },
  },
  async ({ services, account, path }) => {
    await uploads.clearUpload(services, account, path);
    return { message: `Table ${path} cleared.` };
  },
);

export const deleteUpload = routeHandler(
  {
    path: uploadPath,
    docs: { summary: 'Delete an uploaded table and its rows', response: messageResponse, errors: [403] },
  },
  async ({ services, account, path }) => {
    await uploads.deleteUpload(services, account, path);
    return { message: `Table ${path} deleted.` };
  },
);

export const listUploads = routeHandler(
  {
    query: listUploadsQuery,
    docs: { summary: "The caller's uploaded tables", response: uploadListResponse },
  },
  async ({ services, account, query }) =>
    uploadListResponseOf(await uploads.listUploads(services, account, query)),
);

/**
 * Dune's deprecated `/v1/table/*` paths (the Dune SDK's `client.table.*`), which take the same
 * requests and give the same answers as their `/v1/uploads` successors (docs.dune.com, tables
 * overview): the very same handlers, exported under the names the route table gives those routes.
 */
export const createTable = createUpload;
export const uploadTableCsv = uploadCsv;
export const insertIntoTable = insertIntoUpload;
export const deleteTable = deleteUpload;

function rawBody(event: APIGatewayProxyEvent): string {
  if (!event.body) return '';
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.length > MAX_UPLOAD_BODY_BYTES) {
    throw new PayloadTooLargeError(
      `The body is ${bytes.length} bytes; an insert takes at most ${MAX_UPLOAD_BODY_BYTES}. Split the rows over several inserts.`,
    );
  }
  return bytes.toString('utf8');
}
