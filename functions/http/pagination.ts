/** The paging block list endpoints return. */
export function pagination(total: number, limit: number, offset: number) {
  const next = offset + limit;
  return { limit, offset, next_offset: next < total ? next : null, has_more: next < total };
}
