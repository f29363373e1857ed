package dev.rota.host.temporal;

import dev.rota.host.StartupException;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's Java test server, run in this process for dev mode, in real time. It keeps its state
 * in memory only, so the host reconciles it with the database at start. Bound to loopback: the
 * stock {@code TestServer.createPortBoundServer} binds every interface with no authentication.
 */
public final class EmbeddedTemporalServer implements LocalTemporalServer {
  private final TestServicesStarter services;
  private final Server server;

  /** The same services, served within this process to this host's own client. */
  private final Server inProcess;

  private final ManagedChannel inProcessChannel;

  private EmbeddedTemporalServer(
      TestServicesStarter services, Server server, Server inProcess, String inProcessName) {
    this.services = services;
    this.server = server;
    this.inProcess = inProcess;
    this.inProcessChannel = InProcessChannelBuilder.forName(inProcessName).build();
  }

  public static EmbeddedTemporalServer start(int port) {
    // lockTimeSkipping = true: real time, as a dev server must run; 0 = start at the wall clock.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    UnkeptTimerLocks.forget(services);
    FirstComeTaskQueues.impose(services);
    ServerBuilder<?> builder =
        NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            InsecureServerCredentials.create());
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    String inProcessName = "rota-embedded-temporal-" + InProcessServerBuilder.generateName();
    InProcessServerBuilder inProcessBuilder = InProcessServerBuilder.forName(inProcessName);
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), inProcessBuilder);
    Server inProcess = null;
    try {
      inProcess = inProcessBuilder.build().start();
      return new EmbeddedTemporalServer(
          services, builder.build().start(), inProcess, inProcessName);
    } catch (IOException e) {
      if (inProcess != null) {
        inProcess.shutdownNow();
      }
      services.close();
      throw new StartupException(
          "embedded Temporal cannot listen on 127.0.0.1:"
              + port
              + " ("
              + StartupException.rootMessage(e)
              + "); set ROTA_TEMPORAL_PORT to a free port",
          e);
    }
  }

  @Override
  public String description() {
    return "embedded Java test server: no Web UI, nothing kept across restarts; "
        + "the Temporal CLI on the PATH (or ROTA_TEMPORAL_CLI) gets the real one";
  }

  @Override
  public Optional<String> webUi() {
    return Optional.empty();
  }

  @Override
  public Optional<ManagedChannel> inProcessChannel() {
    return Optional.of(inProcessChannel);
  }

  @Override
  public void close() {
    inProcessChannel.shutdownNow();
    for (Server s : new Server[] {inProcess, server}) {
      s.shutdown();
      try {
        if (!s.awaitTermination(5, TimeUnit.SECONDS)) {
          s.shutdownNow();
        }
      } catch (InterruptedException e) {
        s.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    services.close();
  }
}
