/**
 * A first-in first-out list whose `shift` costs O(1) amortized: the worker's local queue holds up
 * to a thousand claimed jobs and gives one to each handler slot as it frees, and copying the rest
 * of an array on each of those (Array#slice) was a fifth of the worker's allocations.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T) {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Drop the consumed front once it is most of the array (each item is copied at most once more).
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 64 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
