package dev.rota.agent.runtimes;

import dev.rota.agentapi.DiskSource;
import dev.rota.agentapi.PinnedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A persistent disk copied from the agent that holds it, straight from that agent: over its HTTPS,
 * trusted by the certificate pin the controller gave, with the token the controller signed for that
 * one disk ({@link dev.rota.agentapi.DiskToken}).
 */
final class DiskPull {
  private static final Duration CONNECT = Duration.ofSeconds(10);

  /** How often the copy's progress is said, in bytes. */
  private static final long SAY_EVERY = 64L << 20;

  private DiskPull() {}

  /**
   * Copies the file {@code name} of disk {@code id} from {@code from} to {@code to}, saying how far
   * it got; an {@link IOException} naming the holding worker when it cannot.
   */
  static void copy(DiskSource from, String id, String name, Path to, Consumer<String> progress)
      throws IOException, InterruptedException {
    String what = name.equals("memory.state") ? "its saved memory" : "its disk";
    if (from.endpoint() == null) {
      throw new IOException(
          "could not copy "
              + what
              + " from worker "
              + from.worker()
              + ": that worker is no longer registered");
    }
    URI uri = URI.create(from.endpoint() + "/v1/disks/" + id + "/files/" + name);
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(CONNECT);
    javax.net.ssl.SSLContext tls = PinnedCertificates.only(uri, from.certificateSha256());
    if (tls != null) {
      client.sslContext(tls);
    }
    HttpRequest.Builder get = HttpRequest.newBuilder(uri).GET();
    if (from.token() != null) {
      get.header("Authorization", "Bearer " + from.token());
    }
    HttpClient http = client.build();
    long handover = System.nanoTime() + PersistentDisks.HANDOVER.toNanos();
    HttpResponse<InputStream> answer;
    while (true) {
      try {
        answer = http.send(get.build(), HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        throw new IOException(
            "could not copy " + what + " from worker " + from.worker() + ": " + e.getMessage(), e);
      }
      // The VM's task there may still be ending: the disk is lent once it has.
      if (answer.statusCode() != 409 || System.nanoTime() > handover) {
        break;
      }
      answer.body().close();
      progress.accept(
          "waiting for its task on worker " + from.worker() + " to end, to copy " + what);
      Thread.sleep(1_000);
    }
    try {
      try (InputStream in = answer.body()) {
        if (answer.statusCode() != 200) {
          String why = new String(in.readNBytes(512), java.nio.charset.StandardCharsets.UTF_8);
          throw new IOException(
              "could not copy "
                  + what
                  + " from worker "
                  + from.worker()
                  + ": it answered "
                  + answer.statusCode()
                  + " "
                  + why.strip());
        }
        long size = answer.headers().firstValueAsLong("Content-Length").orElse(-1);
        try {
          body(in, to, size, what, from.worker(), progress);
        } catch (IOException e) {
          if (e.getMessage() != null && e.getMessage().startsWith("could not copy")) {
            throw e;
          }
          throw new IOException(
              "could not copy " + what + " from worker " + from.worker() + ": " + e.getMessage(),
              e);
        }
      }
    } finally {
      // A client no longer reachable closes its connections, even one still being read.
      java.lang.ref.Reference.reachabilityFence(http);
    }
  }

  /** The answer's body written to {@code to} and flushed to disk, its progress said. */
  private static void body(
      InputStream in, Path to, long size, String what, String worker, Consumer<String> progress)
      throws IOException {
    long copied = 0;
    long said = 0;
    byte[] buffer = new byte[1 << 20];
    try (java.nio.channels.FileChannel file =
            java.nio.channels.FileChannel.open(
                to,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream out = java.nio.channels.Channels.newOutputStream(file)) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        out.write(buffer, 0, n);
        copied += n;
        if (copied - said >= SAY_EVERY) {
          said = copied;
          progress.accept(
              "copying "
                  + what
                  + " from worker "
                  + worker
                  + ": "
                  + (size > 0 ? (copied * 100 / size) + "%" : (copied >> 20) + " MiB"));
        }
      }
      out.flush();
      file.force(true);
    }
    if (size >= 0 && copied != size) {
      throw new IOException(
          "could not copy "
              + what
              + " from worker "
              + worker
              + ": the copy ended at "
              + copied
              + " of "
              + size
              + " bytes");
    }
  }
}
