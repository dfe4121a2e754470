import http from 'node:http';

/**
 * An HTTP proxy in front of an emulator (DynamoDB Local, the SQS emulator) that counts the requests of every process
 * using it, by operation (the `X-Amz-Target` header both services' JSON protocols send), and the ones the emulator
 * refused. The in-process meter (dynamo-meter.ts) sees only this process's clients; with worker processes the
 * requests per transaction are counted here, at the emulator's port. The proxy's own CPU is the bench process's.
 */
export interface RequestCounter {
  endpoint: string;
  /** Requests since the last reset, by operation; a refused one as `<operation>!<error>`. */
  counts(): Map<string, number>;
  reset(): void;
  stop(): Promise<void>;
}

export async function startRequestCounter(upstream: string): Promise<RequestCounter> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  let counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const operation = String(req.headers['x-amz-target'] ?? req.method)
      .split('.')
      .pop()!;
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const key =
            answer.statusCode === 200
              ? operation
              : `${operation}!${errorName(body, answer.statusCode)}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(body);
        });
      },
    );
    up.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => new Map(counts),
    reset: () => {
      counts = new Map();
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** The error's short name from a JSON error body (`com.amazonaws…#TransactionCanceledException`), or the status. */
function errorName(body: Buffer, status: number | undefined): string {
  const match = /"__type"\s*:\s*"(?:[^"#]*#)?([^"]+)"/.exec(body.toString('utf8', 0, 500));
  return match?.[1] ?? String(status);
}
