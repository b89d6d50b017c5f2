// The error taxonomy of docs/adapters.md#error-taxonomy for JVM readers: what a throwable a reader raised on a file
// means. The rule of conformance/adapters/taxonomy.py, in Java, for parquet-java (ParquetJavaWorker) and Spark (its
// adapter asks this class through py4j): a throwable is a refusal ("rejected") when it is one of the library's
// declared refusals and no link of its cause chain is one of the JVM's safety nets (ParquetDecodingException("Can't
// read value in column") wraps whatever its decoder threw); anything else is an "unhandled-error". Running out of
// memory anywhere in the chain is "oom", out of stack "crash" (a native reader dies of it). It depends on no library:
// classes are matched by name, so that one compiled class serves every parquet-java and Spark release.
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

public final class JavaErrors {
  // The libraries' own code, and the dependencies they call to decode (Thrift, the codecs): a plain check thrown from
  // there, with a message, is on purpose (Preconditions, ParquetFileReader.readFooter's "is not a Parquet file"; a
  // dependency's validation error is a refusal on the library's behalf, docs/adapters.md#error-taxonomy rule 4).
  static final String[] LIBRARY = {"org.apache.parquet.", "org.apache.spark.", "org.apache.thrift.",
      "shaded.parquet.org.apache.thrift.", "org.xerial.snappy.", "com.github.luben.zstd.", "io.airlift.compress.",
      "net.jpountz.", "org.apache.hadoop.io.compress."};
  // Declared refusals, subclasses included: I/O errors (Hadoop's and most codecs' are IOExceptions too), Thrift's,
  // parquet-java's own runtime exceptions, Spark's error classes (AnalysisException, SparkException).
  static final String[] REFUSALS = {"java.io.IOException", "java.io.UncheckedIOException",
      "org.apache.parquet.ParquetRuntimeException",
      "org.apache.thrift.TException", "shaded.parquet.org.apache.thrift.TException", "org.apache.spark.SparkThrowable",
      // the codecs' own refusals of malformed input (a dependency's validation error)
      "io.airlift.compress.MalformedInputException", "com.github.luben.zstd.ZstdException"};
  // Never refusals, even inside a class above.
  static final String[] NOT_REFUSALS = {"org.apache.parquet.ShouldNeverHappenException"};
  static final String INTERNAL = "[INTERNAL_ERROR";  // Spark's error class for its own bugs
  static final String[] OWN_CHECKS = {"java.lang.RuntimeException", "java.lang.IllegalArgumentException",
      "java.lang.IllegalStateException", "java.lang.UnsupportedOperationException"};
  // What the JVM throws when code meets a state it did not expect (and any Error but the two above).
  static final String[] SAFETY_NETS = {"java.lang.NullPointerException", "java.lang.ClassCastException",
      "java.lang.IndexOutOfBoundsException", "java.lang.NegativeArraySizeException", "java.lang.ArithmeticException",
      "java.lang.ArrayStoreException", "java.nio.BufferUnderflowException", "java.nio.BufferOverflowException",
      "java.lang.Error"};
  static final int CHAIN = 8;

  private JavaErrors() {}

  /** "rejected", "unhandled-error", "oom" or "crash". */
  public static String outcome(Throwable t) {
    List<Throwable> chain = chain(t);
    for (Throwable c : chain) {
      if (c instanceof OutOfMemoryError) return "oom";
      if (c instanceof StackOverflowError) return "crash";
    }
    // An assertion anywhere in the chain: never a refusal (rule 5; an Error, so no declaration covers it anyway).
    for (Throwable c : chain) if (c instanceof AssertionError) return "unhandled-error";
    if (!refusal(t)) return "unhandled-error";
    for (Throwable c : chain.subList(1, chain.size())) {
      if (!refusal(c) && safetyNet(c)) return "unhandled-error";
    }
    return "rejected";
  }

  static boolean refusal(Throwable t) {
    Set<String> names = names(t.getClass());
    for (String n : NOT_REFUSALS) if (names.contains(n)) return false;
    String message = String.valueOf(t.getMessage());
    if (names.contains("org.apache.spark.SparkThrowable") && message.startsWith(INTERNAL)) return false;
    for (String n : REFUSALS) if (names.contains(n)) return true;
    return t.getMessage() != null && List.of(OWN_CHECKS).contains(t.getClass().getName()) && thrownBy(t, LIBRARY);
  }

  static boolean safetyNet(Throwable t) {
    Set<String> names = names(t.getClass());
    for (String n : SAFETY_NETS) if (names.contains(n)) return true;
    // an argument or state check of the JDK's (Buffer.limit, Enum.valueOf), not of the library's
    return t instanceof RuntimeException && thrownBy(t, new String[] {"java.", "javax.", "jdk.", "sun."});
  }

  static boolean thrownBy(Throwable t, String[] packages) {
    StackTraceElement[] st = t.getStackTrace();
    if (st.length == 0) return false;
    for (String p : packages) if (st[0].getClassName().startsWith(p)) return true;
    return false;
  }

  static List<Throwable> chain(Throwable t) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable c = t; c != null && out.size() < CHAIN && !out.contains(c); c = c.getCause()) out.add(c);
    return out;
  }

  /** The names of a class, its superclasses and every interface they implement. */
  static Set<String> names(Class<?> cls) {
    Set<String> out = new HashSet<>();
    List<Class<?>> todo = new ArrayList<>(List.of(cls));
    while (!todo.isEmpty()) {
      Class<?> c = todo.remove(todo.size() - 1);
      if (c == null || !out.add(c.getName())) continue;
      todo.add(c.getSuperclass());
      todo.addAll(List.of(c.getInterfaces()));
    }
    return out;
  }
}
