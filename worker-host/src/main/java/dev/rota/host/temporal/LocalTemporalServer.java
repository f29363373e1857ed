package dev.rota.host.temporal;

import java.util.Optional;

/**
 * The Temporal server dev mode runs for itself on 127.0.0.1: the real one (CLI) or the Java test
 * server.
 */
public interface LocalTemporalServer extends AutoCloseable, dev.rota.api.vms.TemporalUiSource {
  /** What it is, for the banner: e.g. "Temporal CLI 1.9.1 dev server, state in …". */
  String description();

  /** The Web UI's URL, when this server has one. */
  @Override
  Optional<String> webUi();

  /**
   * A channel to it within this process, for this host's own client, when it runs in this process:
   * no socket, no HTTP/2 framing, and the SDK's messages handed over as they are, not serialized.
   * Others (the CLI, a second host) use its port. The channel closes with the server.
   */
  Optional<io.grpc.ManagedChannel> inProcessChannel();

  @Override
  void close();
}
