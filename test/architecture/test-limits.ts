/** The functions whose last argument is a limit: vitest's tests and hooks, and `until` (test/support/platform.ts). */
const LIMITED = /^(it|test|describe|beforeAll|beforeEach|afterAll|afterEach|until)$/;

/**
 * A limit a test file sets itself, by line: a test, hook or `until` closed by a number or a constant of its own
 * (`}, 120_000);`, or `SLOW,` on the line before `);`), or a browser wait's `timeout:` given as a number. Every limit of the
 * suites derives from TEST_TIME_SCALE (test/support/time-scale.ts): a test that needs more on a busy machine
 * raises the scale, not its own number. A limit from time-scale.ts (`*_LIMIT_MS`) passes; so do numbers below a
 * second and the timeouts of the code under test (a function's `timeoutMs`), which are what a test is about.
 */
export function ownLimits(source: string): string[] {
  const lines = source.split('\n');
  const found: string[] = [];
  const own = (value: string) => {
    const v = value.replace(/^\d+ \* /, '');
    if (/^[0-9][0-9_]*$/.test(v)) return Number(v.replaceAll('_', '')) >= 1000;
    return /^[A-Z][A-Z0-9_]*$/.test(v) && !/_LIMIT_MS$/.test(v);
  };
  /** The name of the call whose `)` is the last one before `offset` (parentheses counted back, strings aside). */
  const calleeBefore = (offset: number): string => {
    let depth = 0;
    for (let i = offset; i >= 0; i--) {
      const c = source[i];
      if (c === ')') depth++;
      else if (c === '(' && --depth === 0)
        return /([A-Za-z_$][\w$]*)\s*$/.exec(source.slice(Math.max(0, i - 60), i))?.[1] ?? '';
    }
    return '';
  };
  let offset = 0;
  lines.forEach((line, i) => {
    const closing = /^\s*\}, ((?:\d+ \* )?[A-Z0-9_]+)\);$/.exec(line);
    const alone = /^\s*((?:\d+ \* )?[A-Z0-9_]+),$/.exec(line);
    const option = /\btimeout: ([0-9][0-9_]*)\s*[,}]/.exec(line);
    const next = lines[i + 1] ?? '';
    if (closing && own(closing[1]!) && LIMITED.test(calleeBefore(offset + line.lastIndexOf(')'))))
      found.push(`${i + 1}: ${line.trim()}`);
    else if (
      alone &&
      /^\s*\);$/.test(next) &&
      own(alone[1]!) &&
      LIMITED.test(calleeBefore(offset + line.length + 1 + next.indexOf(')')))
    )
      found.push(`${i + 1}: ${line.trim()}`);
    else if (option && /\bwaitFor/.test(line) && own(option[1]!))
      found.push(`${i + 1}: ${line.trim()}`);
    offset += line.length + 1;
  });
  return found;
}
