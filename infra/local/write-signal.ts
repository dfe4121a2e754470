/**
 * Told of every write the local gateway answered: the stream pollers, which back off while the platform is idle,
 * are woken by it instead of polling DynamoDB Local often just in case (its GetRecords costs more the more stream
 * records it holds). Listeners must be cheap: they run on every write.
 */
export class WriteSignal {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` at every write until the returned function is called. */
  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}
