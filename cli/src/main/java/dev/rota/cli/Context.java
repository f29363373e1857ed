package dev.rota.cli;

/**
 * Where the CLI talks to and as whom: a server URL and a token (null: auth off, as in dev mode),
 * the SSH key its qemu VMs get when none is named (null: none), and the namespace its creates and
 * lists are in when none is named (null: the server's default for a create, every one for a list).
 */
record Context(String name, String server, String token, String sshKey, String namespace) {
  /**
   * What a VM claimed from a pool or made of a template takes of no context: its key and namespace
   * are the pool's or the template's.
   */
  static final Context NONE = new Context(null, null, null, null, null);
}
