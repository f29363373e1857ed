package dev.rota.store;

import io.micronaut.core.convert.ConversionContext;
import io.micronaut.core.type.Argument;
import io.micronaut.data.model.runtime.convert.AttributeConverter;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Attribute converters between the rows' maps and lists and their JSON text columns. */
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.GuestSpec.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.core.model.LabelConstraint.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.Toleration.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.core.model.Affinity.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.PortSpec.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.Disconnect.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.NetworkSpec.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.Checks.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.SecretRefs.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.CheckSpec.class)
@io.micronaut.serde.annotation.SerdeImport(dev.rota.agentapi.CheckSpec.HttpCheck.class)
public final class Converters {
  private Converters() {}

  private abstract static class Json<T> implements AttributeConverter<T, String> {
    private final JsonColumns json;
    private final Argument<T> type;
    private final T empty;

    Json(JsonColumns json, Argument<T> type, T empty) {
      this.json = json;
      this.type = type;
      this.empty = empty;
    }

    @Override
    public String convertToPersistedValue(T value, ConversionContext context) {
      return json.write(value == null ? empty : value);
    }

    @Override
    public T convertToEntityValue(String value, ConversionContext context) {
      return value == null ? empty : json.read(value, type);
    }
  }

  /** Resource quantities by name; sorted so that the stored text is stable. */
  @Singleton
  public static class Quantities extends Json<Map<String, Long>> {
    public Quantities(JsonColumns json) {
      super(json, Argument.mapOf(String.class, Long.class), Map.of());
    }

    @Override
    public String convertToPersistedValue(Map<String, Long> value, ConversionContext context) {
      return super.convertToPersistedValue(value == null ? null : new TreeMap<>(value), context);
    }
  }

  /** Labels and environment variables; sorted so that the stored text is stable. */
  @Singleton
  public static class Strings extends Json<Map<String, String>> {
    public Strings(JsonColumns json) {
      super(json, Argument.mapOf(String.class, String.class), Map.of());
    }

    @Override
    public String convertToPersistedValue(Map<String, String> value, ConversionContext context) {
      return super.convertToPersistedValue(value == null ? null : new TreeMap<>(value), context);
    }
  }

  /** Commands and runtime lists, in their order. */
  @Singleton
  public static class StringList extends Json<List<String>> {
    public StringList(JsonColumns json) {
      super(json, Argument.listOf(String.class), List.of());
    }
  }

  /** Role names by namespace; sorted so that the stored text is stable. */
  @Singleton
  public static class StringLists extends Json<Map<String, List<String>>> {
    public StringLists(JsonColumns json) {
      super(json, Argument.mapOf(Argument.STRING, Argument.listOf(String.class)), Map.of());
    }

    @Override
    public String convertToPersistedValue(
        Map<String, List<String>> value, ConversionContext context) {
      return super.convertToPersistedValue(value == null ? null : new TreeMap<>(value), context);
    }
  }

  /**
   * A JSON column whose value may say nothing: then it is stored as NULL, and read back as null.
   */
  private abstract static class Optional<T> extends Json<T> {
    private final java.util.function.Predicate<T> saysNothing;

    Optional(JsonColumns json, Class<T> type, java.util.function.Predicate<T> saysNothing) {
      super(json, Argument.of(type), null);
      this.saysNothing = saysNothing;
    }

    @Override
    public String convertToPersistedValue(T value, ConversionContext context) {
      return saysNothing.test(value) ? null : super.convertToPersistedValue(value, context);
    }
  }

  /** A VM's guest configuration, as one JSON document; none is NULL. */
  @Singleton
  public static class Guest extends Optional<dev.rota.agentapi.GuestSpec> {
    public Guest(JsonColumns json) {
      super(json, dev.rota.agentapi.GuestSpec.class, dev.rota.agentapi.GuestSpec::none);
    }
  }

  /** Which of a VM's values are secrets, by name, as one JSON document; none is NULL. */
  @Singleton
  public static class Secrets extends Optional<dev.rota.agentapi.SecretRefs> {
    public Secrets(JsonColumns json) {
      super(json, dev.rota.agentapi.SecretRefs.class, dev.rota.agentapi.SecretRefs::none);
    }
  }

  /** A qemu VM's network mode, as one JSON document; none (another runtime) is NULL. */
  @Singleton
  public static class Network extends Optional<dev.rota.agentapi.NetworkSpec> {
    public Network(JsonColumns json) {
      super(json, dev.rota.agentapi.NetworkSpec.class, n -> n == null);
    }
  }

  /** A VM's readiness and liveness checks, as one JSON document; none is NULL. */
  @Singleton
  public static class HealthChecks extends Optional<dev.rota.agentapi.Checks> {
    public HealthChecks(JsonColumns json) {
      super(json, dev.rota.agentapi.Checks.class, dev.rota.agentapi.Checks::none);
    }
  }

  /** A list in its order; an empty one is NULL, which reads back as empty. */
  abstract static class JsonList<E> extends Json<List<E>> {
    JsonList(JsonColumns json, Class<E> element) {
      super(json, Argument.listOf(element), List.of());
    }

    @Override
    public String convertToPersistedValue(List<E> value, ConversionContext context) {
      return value == null || value.isEmpty()
          ? null
          : super.convertToPersistedValue(value, context);
    }
  }

  /** A VM's named ports. */
  @Singleton
  public static class Ports extends JsonList<dev.rota.agentapi.PortSpec> {
    public Ports(JsonColumns json) {
      super(json, dev.rota.agentapi.PortSpec.class);
    }
  }

  /** The data volumes a VM mounts. */
  @Singleton
  public static class Mounts extends JsonList<VolumeMount> {
    public Mounts(JsonColumns json) {
      super(json, VolumeMount.class);
    }
  }

  /** A VM's constraints on its worker's labels. */
  @Singleton
  public static class Constraints extends JsonList<dev.rota.core.model.LabelConstraint> {
    public Constraints(JsonColumns json) {
      super(json, dev.rota.core.model.LabelConstraint.class);
    }
  }

  /** A VM's affinities for workers. */
  @Singleton
  public static class Affinities extends JsonList<dev.rota.core.model.Affinity> {
    public Affinities(JsonColumns json) {
      super(json, dev.rota.core.model.Affinity.class);
    }
  }

  /** A VM's tolerations of workers' taints. */
  @Singleton
  public static class Tolerations extends JsonList<dev.rota.agentapi.Toleration> {
    public Tolerations(JsonColumns json) {
      super(json, dev.rota.agentapi.Toleration.class);
    }
  }

  /** A task's worker ports by name, as its agent reported them; none is NULL. */
  @Singleton
  public static class PortNumbers extends Json<Map<String, Integer>> {
    public PortNumbers(JsonColumns json) {
      super(json, Argument.mapOf(String.class, Integer.class), Map.of());
    }

    @Override
    public String convertToPersistedValue(Map<String, Integer> value, ConversionContext context) {
      return value == null || value.isEmpty()
          ? null
          : super.convertToPersistedValue(new TreeMap<>(value), context);
    }
  }

  /** What becomes of a VM whose worker is cut off; the default is NULL. */
  @Singleton
  public static class DisconnectPolicy extends Optional<dev.rota.agentapi.Disconnect> {
    public DisconnectPolicy(JsonColumns json) {
      super(json, dev.rota.agentapi.Disconnect.class, java.util.Objects::isNull);
    }
  }

  /** A VM set's template, as one JSON document. */
  @Singleton
  public static class Template extends Json<VmTemplate> {
    public Template(JsonColumns json) {
      super(json, Argument.of(VmTemplate.class), null);
    }
  }
}
