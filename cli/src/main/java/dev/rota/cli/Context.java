package dev.rota.cli;

/**
 * Where the CLI talks to and as whom: a server URL and a token (null: auth off, as in dev mode).
 */
record Context(String name, String server, String token) {}
