/**
 * The rows a file enrichment wrote before it stopped (the service restarted mid-run), read back from its
 * partial result file so a resumed run copies them and goes on from the next input row, without looking
 * them up again. Result rows follow input rows one for one, so their count is where to go on from. The
 * last row read is left out: the stop may have cut it short, and redoing it costs no credit (the lookup
 * cache holds its answer). A row of the wrong width, or what cannot be read, ends the rows kept.
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/** The result file's rows after its header, each `width` cells, but for the last. */
export async function* rowsDone(partial: Readable, width: number): AsyncGenerator<string[]> {
  const records = partial.pipe(parse({ bom: true, relax_column_count: true, relax_quotes: false }));
  let header = true;
  let held: string[] | undefined;
  try {
    for await (const record of records as AsyncIterable<string[]>) {
      if (header) {
        header = false;
        continue;
      }
      if (record.length !== width) break;
      if (held) yield held;
      held = record;
    }
  } catch {
    // A row cut off inside a quoted cell: what came before it stands.
  } finally {
    partial.destroy();
  }
}
