import { ImportError } from '../../errors/index.js';

/**
 * The lines of a byte stream (UTF-8, `\n` or `\r\n` ends a line), numbered from 1, empty lines left out. Holds at
 * most one line and one chunk: a line longer than `maxBytes` is refused before it is read whole.
 */
export async function* bodyLines(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<{ text: string; line: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 0;
  const take = (tail: Uint8Array) => {
    const bytes = concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    line++;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new ImportError(`line ${line}: not UTF-8`);
    }
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      if (pendingBytes + end - start > maxBytes)
        throw new ImportError(`line ${line + 1}: longer than ${maxBytes} bytes`);
      const text = take(chunk.subarray(start, end));
      if (text.trim() !== '') yield { text, line };
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    pendingBytes += rest.length;
    if (pendingBytes > maxBytes)
      throw new ImportError(`line ${line + 1}: longer than ${maxBytes} bytes`);
    // A copy: the stream may reuse its chunk's buffer.
    if (rest.length > 0) pending.push(rest.slice());
  }
  if (pendingBytes > 0) {
    const text = take(new Uint8Array());
    if (text.trim() !== '') yield { text, line };
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
