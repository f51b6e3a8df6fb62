import { describe, expect, it } from 'vitest';
import type { Priority } from '../../src/core/limiter.js';
import { PRIORITY, priorityOf } from '../../src/store/queue.js';

describe('stored job priority', () => {
  it('reads back every priority as it was written', () => {
    for (const priority of Object.keys(PRIORITY) as Priority[]) expect(priorityOf(PRIORITY[priority])).toBe(priority);
  });

  it('stores interactive work above bulk work, so it is claimed first', () => {
    expect(PRIORITY.interactive).toBeGreaterThan(PRIORITY.bulk);
  });
});
