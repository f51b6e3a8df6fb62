import type { Command } from 'commander';

export function registerStoreCommands(parent: Command): void {
  void parent;
}
