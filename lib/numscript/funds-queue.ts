/** Funds taken from sources, waiting for destinations to claim them. */
export interface Funds {
  readonly account: string;
  readonly amount: bigint;
  readonly color: string;
}

/**
 * First in, first out, as the reference's funds stack: sources push what they give in source order, each
 * destination pulls in destination order, and every pulled piece becomes one posting. Neighbouring pieces of the
 * same account (and color) are merged before a pull, which is the only merging of postings the reference does:
 * `{@a @a}` gives one posting, `{@a @b @a}` three. Items are never mutated, so a copy of the array is a snapshot
 * (oneof backtracks to one).
 */
export class FundsQueue {
  private constructor(
    private items: Funds[],
    private head: number,
  ) {}

  static empty(): FundsQueue {
    return new FundsQueue([], 0);
  }

  push(funds: Funds): void {
    this.items.push(funds);
  }

  snapshot(): FundsQueue {
    return new FundsQueue(this.items.slice(this.head), 0);
  }

  /** Takes up to `amount`, oldest first; less only if the queue runs dry. */
  pull(amount: bigint): Funds[] {
    const taken: Funds[] = [];
    let required = amount;
    while (required !== 0n && this.head < this.items.length) {
      this.mergeFront();
      const front = this.items[this.head]!;
      if (front.amount <= required) {
        taken.push(front);
        required -= front.amount;
        this.head++;
      } else {
        taken.push({ ...front, amount: required });
        this.items[this.head] = { ...front, amount: front.amount - required };
        required = 0n;
      }
    }
    return taken;
  }

  private mergeFront(): void {
    while (this.head + 1 < this.items.length) {
      const first = this.items[this.head]!;
      const second = this.items[this.head + 1]!;
      if (
        second.amount !== 0n &&
        (first.account !== second.account || first.color !== second.color)
      )
        return;
      this.items[this.head + 1] = { ...first, amount: first.amount + second.amount };
      this.head++;
    }
  }
}
