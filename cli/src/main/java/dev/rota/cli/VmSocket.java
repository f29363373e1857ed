package dev.rota.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One WebSocket into a running VM through the server (a port, its console, a command): bytes from
 * the user go up as binary messages and the VM's come down, until either side ends it. The server's
 * first message, empty, says the way in is open; an empty message up says the user has finished
 * sending. A refusal closes the socket with its reason, which is said on stderr.
 */
final class VmSocket {
  private final Context context;
  private final PrintWriter err;
  private final String verb;

  VmSocket(Context context, PrintWriter err, String verb) {
    this.context = context;
    this.err = err;
    this.verb = verb;
  }

  /** The socket's address on the context's server, for a path under it. */
  static URI uri(Context context, String path) {
    String server = context.server();
    String ws =
        server.startsWith("https://")
            ? "wss://" + server.substring(8)
            : "ws://" + server.substring(server.indexOf("://") + 3);
    return URI.create(ws + path);
  }

  /** Whether the VM's side closed it (rather than a refusal or a break). */
  boolean carry(HttpClient http, URI uri, InputStream fromUser, OutputStream toUser) {
    return carry(http, uri, fromUser, toUser, false);
  }

  /**
   * As {@link #carry(HttpClient, URI, InputStream, OutputStream)}; with {@code endWithInput}, the
   * end of the user's input ends the socket at once (a console's detach key), and counts as a
   * normal end.
   */
  boolean carry(
      HttpClient http, URI uri, InputStream fromUser, OutputStream toUser, boolean endWithInput) {
    CompletableFuture<Boolean> closed = new CompletableFuture<>();
    // The server's first message, empty, says the tunnel is open: nothing is sent before it.
    CompletableFuture<Boolean> open = new CompletableFuture<>();
    WebSocket.Builder builder = http.newWebSocketBuilder();
    if (context.token() != null && !context.token().isBlank()) {
      builder.header("Authorization", "Bearer " + context.token());
    }
    WebSocket ws;
    try {
      ws =
          builder
              .buildAsync(
                  uri,
                  new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onBinary(
                        WebSocket socket, ByteBuffer data, boolean last) {
                      try {
                        byte[] bytes = new byte[data.remaining()];
                        data.get(bytes);
                        if (!open.isDone() && bytes.length == 0) {
                          open.complete(true);
                          socket.request(1);
                          return null;
                        }
                        toUser.write(bytes);
                        toUser.flush();
                      } catch (IOException e) {
                        socket.abort();
                        closed.complete(false);
                      }
                      socket.request(1);
                      return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket socket, int code, String reason) {
                      if (code != WebSocket.NORMAL_CLOSURE) {
                        say(verb + ": " + reason);
                      }
                      closed.complete(code == WebSocket.NORMAL_CLOSURE);
                      return null;
                    }

                    @Override
                    public void onError(WebSocket socket, Throwable error) {
                      say(verb + ": " + error.getMessage());
                      closed.complete(false);
                    }
                  })
              .join();
    } catch (java.util.concurrent.CompletionException e) {
      say(
          verb
              + ": cannot open a connection through "
              + context.server()
              + ": "
              + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
      return false;
    }
    Thread upstream =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                if (CompletableFuture.anyOf(open, closed).join() != Boolean.TRUE
                    || !open.isDone()) {
                  return;
                }
                int n;
                while ((n = fromUser.read(buffer)) >= 0) {
                  if (n > 0) {
                    ws.sendBinary(ByteBuffer.wrap(Arrays.copyOf(buffer, n)), true).join();
                  }
                }
                if (endWithInput) {
                  closed.complete(true);
                  return;
                }
                // An empty message: nothing more comes from this side.
                ws.sendBinary(ByteBuffer.allocate(0), true).join();
              } catch (IOException | RuntimeException e) {
                closed.complete(false);
              }
            },
            "vm-socket-up");
    upstream.setDaemon(true);
    upstream.start();
    boolean normally = closed.join();
    if (endWithInput && !ws.isOutputClosed()) {
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "detached")
          .completeOnTimeout(null, 2, java.util.concurrent.TimeUnit.SECONDS)
          .join();
    }
    ws.abort();
    return normally;
  }

  private synchronized void say(String line) {
    err.println("rota: " + line);
    err.flush();
  }
}
