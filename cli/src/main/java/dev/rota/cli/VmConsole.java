package dev.rota.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code rota vm console NAME}: attaches the terminal to a running VM's serial console through the
 * server, as {@code virsh console} does: the terminal is put in raw mode (every key goes to the
 * guest, Ctrl-C too) and {@code Ctrl-]} detaches, leaving the VM running.
 */
final class VmConsole {
  /** Ctrl-]: the detach key, as telnet's and virsh's. */
  static final int DETACH = 0x1d;

  private final Context context;
  private final PrintWriter err;

  VmConsole(Context context, PrintWriter err) {
    this.context = context;
    this.err = err;
  }

  int run(String vm, InputStream in, PrintStream out) {
    boolean terminal = System.console() != null;
    String saved = terminal ? stty("-g") : null;
    if (terminal) {
      stty("raw", "-echo");
    }
    Detaching keys = new Detaching(in);
    boolean normally;
    try {
      err.print("Connected to vm " + vm + "'s console; detach with Ctrl-]\r\n");
      err.flush();
      normally =
          new VmSocket(context, err, "vm console")
              .carry(
                  HttpClient.newHttpClient(),
                  VmSocket.uri(context, "/v1/vms/" + ApiClient.segment(vm) + "/console"),
                  keys,
                  out,
                  true);
    } finally {
      if (saved != null) {
        stty(saved.strip());
      }
    }
    if (keys.detached) {
      err.println();
      err.println("Detached from vm " + vm + "'s console; it runs on.");
    } else if (normally) {
      err.println();
      err.println("vm " + vm + "'s console closed.");
    }
    err.flush();
    return normally ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** The terminal's settings through {@code stty} on {@code /dev/tty}; its output. */
  private static String stty(String... args) {
    List<String> argv = new ArrayList<>(List.of("stty"));
    argv.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/tty")))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return said;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The user's keys up to the detach key, which ends them. */
  private static final class Detaching extends dev.rota.agentapi.BlockInputStream {
    private final InputStream in;
    volatile boolean detached;

    Detaching(InputStream in) {
      this.in = in;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (detached) {
        return -1;
      }
      int n = in.read(b, off, len);
      for (int i = 0; i < n; i++) {
        if (b[off + i] == DETACH) {
          detached = true;
          return i == 0 ? -1 : i;
        }
      }
      return n;
    }
  }
}
