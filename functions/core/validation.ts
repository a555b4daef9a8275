import type { ZodError } from 'zod';

/** One readable line per problem, naming where it is: `body.limit: Too big: expected number to be <=250`. */
export function formatZodError(error: ZodError, root?: string): string {
  return error.issues
    .map((issue) => {
      const path = [root, ...issue.path.map(String)].filter(Boolean).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
