import { createInterface } from 'node:readline';
import { ImportError } from '../../lib/errors/index.js';
import { stringifyJson } from '../../lib/json/bigint-json.js';
import { ReferenceLogConverter } from '../../lib/ledger/domain/reference-logs/convert.js';
import type { PlatformClient } from '../api/client.js';
import { newestLogId } from '../api/log-pages.js';
import { ApiError, CliError } from '../errors.js';
import { openFile } from '../input-file.js';
import type { Progress } from '../output/progress.js';

export interface ReferenceImport {
  file: string;
  ledger: string;
  /** A part's body at most, in bytes: under the platform's 1 MiB request limit. */
  partBytes: number;
  /** A part's logs at most: the platform replays them before it answers, within API Gateway's 29 s. */
  partLogs: number;
  verifyHashes: boolean;
}

/**
 * `platform import --from-reference <file> --ledger <name>`: a reference (Formance ledger v2) export, read line by
 * line (constant memory), converted (lib/ledger/domain/reference-logs) and sent in parts to
 * POST /v2/<ledger>/logs/import, each part continuing the last (`after`). A part is converted whole before it is
 * sent: a log the converter refuses stops the import with nothing of its part written. The ledger must be new.
 */
export async function importFromReference(
  client: PlatformClient,
  options: ReferenceImport,
  progress: (total: number) => Progress,
): Promise<{ logs: number; parts: number }> {
  const { file, ledger } = options;
  const { stream, size } = await openFile(file);
  const last = await newestLogId(client, ledger);
  if (last !== 0)
    throw new CliError(
      `ledger ${ledger} is not empty (its last log is ${last}): a reference export is imported into a new ledger`,
    );
  const converter = new ReferenceLogConverter({ verifyHashes: options.verifyHashes });
  const bar = progress(size);
  let part: string[] = [];
  let partBytes = 0;
  let imported = 0;
  let parts = 0;
  let read = 0;
  const send = async () => {
    if (part.length === 0) return;
    parts++;
    try {
      await client.text(
        'POST',
        `/api/ledger/v2/${ledger}/logs/import`,
        { text: part.join(''), contentType: 'application/octet-stream' },
        imported > 0 ? { after: String(imported) } : {},
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const first = converter.referenceIdOf(imported + 1);
      const named = e.message.replace(
        /^IMPORT: log (\d+):/,
        (_, id: string) => `IMPORT: reference log ${converter.referenceIdOf(Number(id))}:`,
      );
      throw new CliError(
        `import stopped in part ${parts} (reference logs ${first} to ${first + BigInt(part.length) - 1n}; the ${imported} logs before it are imported): ${named}`,
      );
    }
    imported += part.length;
    part = [];
    partBytes = 0;
  };
  try {
    let line = 0;
    for await (const text of createInterface({
      input: stream,
      crlfDelay: Number.POSITIVE_INFINITY,
    })) {
      line++;
      read += Buffer.byteLength(text) + 1;
      if (text.trim() === '') continue;
      const converted = `${stringifyJson(convert(converter, text, line))}\n`;
      const bytes = Buffer.byteLength(converted);
      if (bytes > options.partBytes)
        throw new CliError(
          `line ${line}: its log converts to ${bytes} bytes, over the part limit of ${options.partBytes}`,
        );
      if (partBytes + bytes > options.partBytes || part.length >= options.partLogs) await send();
      part.push(converted);
      partBytes += bytes;
      bar.update(Math.min(read, size));
    }
    await send();
  } finally {
    bar.stop();
    stream.destroy();
  }
  return { logs: imported, parts };
}

function convert(converter: ReferenceLogConverter, text: string, line: number) {
  try {
    return converter.convert(text, line);
  } catch (e) {
    if (e instanceof ImportError) throw new CliError(`import refused: ${e.message}`);
    throw e;
  }
}
