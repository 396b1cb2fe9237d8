/** A whole-number option of a chaos script (`--name N`), or its default. */
export function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number, got ${process.argv[at + 1]}`);
  return value;
}
