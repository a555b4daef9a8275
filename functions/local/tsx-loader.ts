import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

let loader: string | undefined;

/**
 * tsx's loader, for the `--import` of a process or thread the host starts from its TypeScript
 * source (engine processes, dynalite's thread), so it runs the source as the host does.
 */
export function tsxLoader(): string {
  loader ??= pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return loader;
}
