import { z } from 'zod';

/** The paging block list endpoints return. */
export const paginationSchema = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  next_offset: z.number().int().nullable().describe('Where the next page starts; null on the last page.'),
  has_more: z.boolean(),
});

export function pagination(total: number, limit: number, offset: number): z.output<typeof paginationSchema> {
  const next = offset + limit;
  return { limit, offset, next_offset: next < total ? next : null, has_more: next < total };
}
