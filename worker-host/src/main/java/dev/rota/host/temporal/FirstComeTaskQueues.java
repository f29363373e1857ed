package dev.rota.host.temporal;

import io.temporal.internal.testservice.TestServicesStarter;
import java.lang.reflect.Field;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the embedded test server hand out the tasks of a queue in the order they came. Its {@code
 * TaskQueue} keeps its backlog in a {@code PriorityQueue} ordered by priority alone, and a binary
 * heap of equal keys hands out the task added last: after each poll the newest task takes the head.
 * While a backlog lasts, the oldest tasks wait until it is gone (under a long load, minutes, while
 * newer ones ran at once), and a sticky task that waits out its timeout is run twice. The real
 * server serves a queue first come, first served; with this, so does the embedded one. Should a new
 * SDK change the classes, the server runs as it ships and this says so once.
 */
final class FirstComeTaskQueues {
  private static final Logger log = LoggerFactory.getLogger(FirstComeTaskQueues.class);
  private static final String[] QUEUE_MAPS = {
    "workflowTaskQueues", "activityTaskQueues", "nexusTaskQueues"
  };

  private FirstComeTaskQueues() {}

  /**
   * Whether every task queue of {@code services}, present and future, now serves first come, first
   * served.
   */
  static boolean impose(TestServicesStarter services) {
    try {
      Object store =
          TestServerFields.open(TestServicesStarter.class, "workflowStore", Object.class)
              .get(services);
      Field backlog =
          TestServerFields.open(
              Class.forName("io.temporal.internal.testservice.TaskQueue"),
              "backlog",
              PriorityQueue.class);
      for (String name : QUEUE_MAPS) {
        Field queues = TestServerFields.open(store.getClass(), name, Map.class);
        Object current = queues.get(store);
        if (!HashMap.class.equals(
            current
                .getClass())) { // filled by put under the store's lock, as OrderingQueues expects
          throw new NoSuchFieldException(
              name + " is a " + current.getClass().getName() + ", not a HashMap");
        }
        queues.set(store, new OrderingQueues(backlog, (Map<?, ?>) current));
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn(
          "the embedded Temporal server serves its task queues newest first under a backlog: {}",
          e.toString());
      return false;
    }
  }

  /**
   * The store's map of task queues by name: each queue it is given has its backlog replaced first.
   */
  private static final class OrderingQueues extends HashMap<Object, Object> {
    private final transient Field backlog;

    OrderingQueues(Field backlog, Map<?, ?> queues) {
      this.backlog = backlog;
      for (Map.Entry<?, ?> queue : queues.entrySet()) {
        put(queue.getKey(), queue.getValue());
      }
    }

    @Override
    public Object put(Object name, Object queue) {
      try {
        Object current = backlog.get(queue);
        if (!(current instanceof FirstComeBacklog)) {
          backlog.set(queue, FirstComeBacklog.of((PriorityQueue<?>) current));
        }
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot reorder task queue " + name, e);
      }
      return super.put(name, queue);
    }
  }

  /**
   * A priority queue that, among tasks of one priority, hands out the oldest first. Each task's
   * arrival is noted as it is offered, weakly, so that a task gone from the queue takes its note
   * with it; every other operation is the priority queue's own.
   */
  static final class FirstComeBacklog<E> extends PriorityQueue<E> {
    private final Map<Object, Long> arrivals;
    private long arrived;

    private FirstComeBacklog(Comparator<? super E> order, Map<Object, Long> arrivals) {
      super(order);
      this.arrivals = arrivals;
    }

    @SuppressWarnings("unchecked")
    static <E> FirstComeBacklog<E> of(PriorityQueue<?> original) {
      Map<Object, Long> arrivals = new WeakHashMap<>();
      Comparator<E> byArrival = Comparator.comparingLong(arrivals::get);
      Comparator<E> byPriority = (Comparator<E>) original.comparator();
      FirstComeBacklog<E> backlog =
          new FirstComeBacklog<>(
              byPriority == null ? byArrival : byPriority.thenComparing(byArrival), arrivals);
      for (Object task : original) {
        backlog.offer((E) task);
      }
      return backlog;
    }

    @Override
    public boolean offer(E task) {
      arrivals.put(task, arrived++);
      return super.offer(task);
    }
  }
}
