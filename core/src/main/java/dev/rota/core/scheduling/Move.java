package dev.rota.core.scheduling;

/**
 * One replica to move: its next generation is placed on {@code to} while the task of {@code
 * generation} keeps running on {@code from} until the new one has started.
 *
 * @param generation the generation running on {@code from}
 * @param why what the move mends, for the VM's event log
 */
public record Move(String vm, long seq, int generation, String from, String to, String why) {}
