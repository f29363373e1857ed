package dev.rota.cli;

import dev.rota.agentapi.ExecFrames;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.util.List;

/**
 * {@code rota vm exec NAME -- COMMAND...}: runs a command in a running VM through the server (in a
 * {@code process} VM's environment; in a {@code qemu} guest through its guest agent), its output on
 * stdout and stderr, its exit code the CLI's.
 */
final class VmExec {
  private final Context context;
  private final PrintWriter err;

  VmExec(Context context, PrintWriter err) {
    this.context = context;
    this.err = err;
  }

  /** The command's exit code; 1 when it could not be run, saying why. */
  int run(String vm, List<String> command, InputStream in, OutputStream out, OutputStream errOut) {
    String path =
        "/v1/vms/"
            + ApiClient.segment(vm)
            + "/exec"
            + dev.rota.agentapi.TaskTunnel.commandQuery(command);
    ExecFrames.Reader frames = new ExecFrames.Reader(out, errOut);
    new VmSocket(context, err, "vm exec")
        .carry(HttpClient.newHttpClient(), VmSocket.uri(context, path), in, frames);
    return frames.exitCode() == null ? ExitCodes.FAILED : frames.exitCode();
  }
}
