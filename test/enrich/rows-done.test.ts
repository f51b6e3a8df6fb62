/**
 * The rows a stopped file enrichment wrote, read back from its partial result: the header and the last
 * row read are left out (a stop may have cut it short), and reading ends at a row of the wrong width or
 * one cut off inside a quoted cell.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { rowsDone } from '../../src/enrich/listing/file/rows-done.js';

async function read(text: string, width: number): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const row of rowsDone(Readable.from([Buffer.from(text)]), width)) rows.push(row);
  return rows;
}

describe('rowsDone', () => {
  it('gives every row after the header but the last, with a byte-order mark and a cell over two lines', async () => {
    const text = '\uFEFFa,b,status\r\n1,"two\r\nlines",enriched\r\n2,x,no_match\r\n3,y,enriched\r\n';
    expect(await read(text, 3)).toEqual([
      ['1', 'two\r\nlines', 'enriched'],
      ['2', 'x', 'no_match'],
    ]);
  });

  it('stops at a row cut short, outside or inside quotes', async () => {
    expect(await read('a,b,status\r\n1,x,enriched\r\n2,y,enriched\r\n3,z', 3)).toEqual([['1', 'x', 'enriched']]);
    expect(await read('a,b,status\r\n1,x,enriched\r\n2,y,enriched\r\n3,"matched by', 3)).toEqual([
      ['1', 'x', 'enriched'],
    ]);
    expect(await read('', 3)).toEqual([]);
  });
});
