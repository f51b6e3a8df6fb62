import type { Command } from 'commander';

export function registerMappingCommands(parent: Command): void {
  void parent;
}
