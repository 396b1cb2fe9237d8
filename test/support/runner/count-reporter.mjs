// A node:test reporter that writes one JSON line per finished test (not per suite), so the suite
// runner can count passes, failures and skips of a file without parsing the human-readable output.
export default async function* countReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, details, skip, todo } = event.data;
    if (details?.type === 'suite') continue;
    const outcome = event.type === 'test:fail' ? 'fail' : skip || todo ? 'skip' : 'pass';
    yield `${JSON.stringify({ outcome, name, nesting, ms: details?.duration_ms ?? 0 })}\n`;
  }
}
