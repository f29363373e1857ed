package dev.rota.api.templates;

import dev.rota.api.JsonBodies;
import dev.rota.api.problem.Problems;
import dev.rota.api.vms.VmRequest;
import dev.rota.api.vms.VmService;
import dev.rota.api.vms.VmView;
import dev.rota.control.Refused;
import dev.rota.store.TemplateRepository;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a VM of a template now: what a dispatch asks, and what each run of a schedule does. A VM
 * made under a name already made (a dispatch with the same key, a schedule's run tried again) is
 * found, not made again.
 */
@Singleton
public class TemplateDispatch {
  private static final Logger log = LoggerFactory.getLogger(TemplateDispatch.class);

  private final TemplateRepository templates;
  private final JsonBodies bodies;
  private final VmService vms;
  private final SecureRandom random = new SecureRandom();

  public TemplateDispatch(TemplateRepository templates, JsonBodies bodies, VmService vms) {
    this.templates = templates;
    this.bodies = bodies;
    this.vms = vms;
  }

  /** The VM, and whether this call made it (false: it existed, made by the same name before). */
  public record Dispatched(VmView vm, boolean made) {}

  /**
   * A VM of the template, checked as {@code POST /v1/vms} checks one (a 400 names {@code
   * parameters.<name>}), named {@code name} or, without, after the template and the key. With a
   * key, a VM of that name made already is the answer.
   */
  public Dispatched dispatch(
      String template, String name, String key, Map<String, Object> parameters) {
    if (templates.findById(template).isEmpty()) {
      throw Problems.notFound("template", template);
    }
    String vm = name != null ? name : vmName(template, key);
    boolean once = key != null;
    VmRequest made = request(template, vm, parameters);
    if (once) {
      Optional<VmView> done = vms.view(vm);
      if (done.isPresent()) {
        return new Dispatched(done.get(), false);
      }
    }
    try {
      VmView created = vms.create(made);
      log.info("template {} dispatched as vm {}", template, vm);
      return new Dispatched(created, true);
    } catch (Refused e) {
      // The same name, made at once by another call with it: that call made it.
      Optional<VmView> done = once ? vms.view(vm) : Optional.empty();
      if (done.isPresent()) {
        return new Dispatched(done.get(), false);
      }
      throw e;
    }
  }

  /** The VM request a dispatch makes: checked, so a parameter's fault is a 400 naming it. */
  public VmRequest request(String template, String vm, Map<String, Object> parameters) {
    Map<String, Object> asked = new LinkedHashMap<>();
    asked.put("name", vm);
    asked.put("fromTemplate", template);
    if (parameters != null) {
      asked.put("parameters", parameters);
    }
    return bodies.readPart("body", asked, VmRequest.class);
  }

  /**
   * A dispatched VM's name: the template's, then a part made of the key (the same key, the same
   * name), or a random one without.
   */
  private String vmName(String template, String key) {
    String prefix = template.length() > 53 ? template.substring(0, 53) : template;
    if (key == null) {
      byte[] bytes = new byte[4];
      random.nextBytes(bytes);
      return prefix + "-" + HexFormat.of().formatHex(bytes);
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((template + "\n" + key).getBytes(StandardCharsets.UTF_8));
      return prefix + "-" + HexFormat.of().formatHex(digest, 0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
