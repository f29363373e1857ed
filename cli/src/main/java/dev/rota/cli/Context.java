package dev.rota.cli;

/**
 * Where the CLI talks to and as whom: a server URL and a token (null: auth off, as in dev mode),
 * and the SSH key its qemu VMs get when none is named (null: none).
 */
record Context(String name, String server, String token, String sshKey) {}
