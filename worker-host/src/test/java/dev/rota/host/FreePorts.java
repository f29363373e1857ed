package dev.rota.host;

final class FreePorts {
  private FreePorts() {}

  /** A free loopback port below the ephemeral range ({@link LoopbackPorts}). */
  static int next() {
    return LoopbackPorts.free();
  }
}
