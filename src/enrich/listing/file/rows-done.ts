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
  // A row cut off inside a quoted cell is skipped rather than an error, which would drop the rows read
  // with it; rows are written whole, so only the end of the file can be cut off.
  const parser = parse({ bom: true, relax_column_count: true, skip_records_with_error: true });
  let header = true;
  let held: string[] | undefined;
  try {
    for await (const record of partial.pipe(parser) as AsyncIterable<string[]>) {
      if (header) {
        header = false;
        continue;
      }
      if (record.length !== width) break;
      if (held) yield held;
      held = record;
    }
  } catch {
    // What cannot be read ends the rows kept; those before it stand.
  } finally {
    partial.destroy();
  }
}
