package dev.rota.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code rota vm ssh NAME COMMAND…} read as ssh reads {@code ssh HOST COMMAND…}: options may come
 * before or after the name, and the first word after the name that is not an option begins the
 * command, whose own options ({@code uname -a}, {@code ls -l}) are its own, so no {@code --} is
 * needed (one given is taken as before).
 */
final class SshArguments {
  private SshArguments() {}

  /** {@code args} with {@code --} put before the command of a {@code vm ssh}, if it has one. */
  static String[] delimited(CommandSpec ssh, String[] args) {
    int at = start(args);
    if (at < 0) {
      return args;
    }
    boolean named = false;
    for (int i = at; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--")) {
        return args;
      }
      if (arg.startsWith("-") && arg.length() > 1) {
        OptionSpec option = ssh.findOption(arg);
        if (option != null && !arg.contains("=") && option.arity().max() > 0) {
          i++; // its value
        }
        continue;
      }
      if (!named) {
        named = true;
        continue;
      }
      List<String> out = new ArrayList<>(Arrays.asList(args).subList(0, i));
      out.add("--");
      out.addAll(Arrays.asList(args).subList(i, args.length));
      return out.toArray(String[]::new);
    }
    return args;
  }

  /** Where a {@code vm ssh}'s own arguments begin, or -1 when these are another command's. */
  private static int start(String[] args) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("vm")) {
        return args[i + 1].equals("ssh") ? i + 2 : -1;
      }
    }
    return -1;
  }
}
