package io.hybridconnector.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The build check of the supported Tomcat range: every Tomcat class, method and field the connector's byte code
 * references exists in each supported {@code tomcat-embed-core} release (read from its jar, not loaded), no connector
 * class overrides a method Tomcat made final, and every abstract method a connector class inherits from Tomcat is
 * implemented. A method that exists in one release only (Tomcat 10.1.59's {@code SocketWrapperBase.setSniHostName},
 * say) fails this test instead of failing every TLS connection with {@code NoSuchMethodError} on an older Tomcat.
 * <p>
 * The releases are the pom's {@code tomcat.supported.*} list, copied to {@code target/tomcat-api} by the build;
 * references the connector makes by reflection or method handles (chosen per release on purpose) are not byte-code
 * references and are not checked here.
 */
class TomcatApiCompatibilityTest {

    private static final Path OWN_CLASSES = Path.of(System.getProperty("connector.classes", "target/classes"));
    private static final Path JARS = Path.of(System.getProperty("tomcat.api.jars", "target/tomcat-api"));
    private static final List<String> VERSIONS = Arrays.stream(System.getProperty("tomcat.api.versions", "").split(","))
            .map(String::trim).filter(v -> !v.isEmpty()).toList();

    @Test
    void everyReferenceResolvesInEverySupportedTomcat() throws IOException {
        assertTrue(VERSIONS.size() >= 4, "the supported releases are listed (tomcat.api.versions): " + VERSIONS);
        List<String> report = new ArrayList<>();
        for (String version : VERSIONS) {
            Path jar = JARS.resolve("tomcat-embed-core-" + version + ".jar");
            assertTrue(Files.isRegularFile(jar), jar + " was copied by the build");
            Set<String> problems = problems(jar);
            report.add(version + ": " + (problems.isEmpty() ? "ok" : problems.size() + " problems\n  "
                    + String.join("\n  ", problems)));
        }
        System.out.println("Tomcat API check, connector classes against tomcat-embed-core:\n" + String.join("\n", report));
        assertEquals(VERSIONS.stream().map(v -> v + ": ok").toList(), report);
    }

    /** The check itself must fail on a reference that one release lacks: 10.1.59 added setSniHostName. */
    @Test
    void aMethodMissingFromAReleaseIsReported() throws IOException {
        Path jar = JARS.resolve("tomcat-embed-core-" + VERSIONS.get(0) + ".jar");
        try (ClassModel model = new ClassModel(OWN_CLASSES, jar)) {
            boolean has = model.resolveMethod("org/apache/tomcat/util/net/SocketWrapperBase", "setSniHostName",
                    "(Ljava/lang/String;)V") != null;
            assertEquals(false, has, "the oldest supported release lacks SocketWrapperBase.setSniHostName");
            assertTrue(model.resolveMethod("org/apache/tomcat/util/net/SocketWrapperBase", "getEndpoint",
                    "()Lorg/apache/tomcat/util/net/AbstractEndpoint;") != null, "and has getEndpoint()");
        }
    }

    static Set<String> problems(Path tomcatJar) throws IOException {
        Set<String> problems = new TreeSet<>();
        try (ClassModel model = new ClassModel(OWN_CLASSES, tomcatJar); Stream<Path> files = Files.walk(OWN_CLASSES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    new ClassReader(in).accept(new ReferenceChecker(model, problems), ClassReader.SKIP_FRAMES);
                }
            }
        }
        return problems;
    }

    private static boolean isTomcat(String internalName) {
        return internalName.startsWith("org/apache/");
    }

    private static boolean isOwn(String internalName) {
        return internalName.startsWith("io/hybridconnector/");
    }

    /** Visits one connector class and adds what does not resolve against the model's Tomcat. */
    private static final class ReferenceChecker extends ClassVisitor {

        private static final String LOADED_ONLY_WITH = "Lio/hybridconnector/tls/LoadedOnlyWith;";

        private final ClassModel model;
        private final Set<String> allProblems;
        /** This class's problems, kept unless it is loaded only with a Tomcat class this release lacks. */
        private final Set<String> problems = new TreeSet<>();
        private String className;
        private boolean neverLoaded;

        ReferenceChecker(ClassModel model, Set<String> problems) {
            super(Opcodes.ASM9);
            this.model = model;
            this.allProblems = problems;
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            if (!LOADED_ONLY_WITH.equals(descriptor)) {
                return null;
            }
            return new AnnotationVisitor(Opcodes.ASM9) {
                @Override
                public void visit(String name, Object value) {
                    neverLoaded = model.shape(((String) value).replace('.', '/')) == null;
                }
            };
        }

        @Override
        public void visitEnd() {
            if (!neverLoaded) {
                allProblems.addAll(problems);
            }
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                String[] interfaces) {
            className = name;
            type(superName);
            Arrays.stream(interfaces).forEach(this::type);
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_INTERFACE)) == 0) {
                abstractMethodsImplemented(name);
            }
        }

        @Override
        public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor,
                String signature, Object value) {
            descriptorTypes(Type.getType(descriptor));
            return null;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            descriptorTypes(Type.getMethodType(descriptor));
            if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0 && !name.startsWith("<")) {
                noFinalOverridden(name, descriptor);
            }
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitTypeInsn(int opcode, String type) {
                    descriptorTypes(Type.getObjectType(type));
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
                    field(owner, name, descriptor);
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
                        boolean isInterface) {
                    method(owner, name, descriptor);
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String descriptor, Handle bsm, Object... args) {
                    descriptorTypes(Type.getMethodType(descriptor));
                    handle(bsm);
                    for (Object arg : args) {
                        constant(arg);
                    }
                }

                @Override
                public void visitLdcInsn(Object value) {
                    constant(value);
                }

                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    if (type != null) {
                        type(type);
                    }
                }

                @Override
                public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
                    descriptorTypes(Type.getType(descriptor));
                }
            };
        }

        private void constant(Object value) {
            if (value instanceof Type t) {
                descriptorTypes(t);
            } else if (value instanceof Handle h) {
                handle(h);
            }
        }

        private void handle(Handle h) {
            if (h.getTag() <= Opcodes.H_PUTSTATIC) {
                field(h.getOwner(), h.getName(), h.getDesc());
            } else {
                method(h.getOwner(), h.getName(), h.getDesc());
            }
        }

        private void descriptorTypes(Type t) {
            switch (t.getSort()) {
                case Type.METHOD -> {
                    descriptorTypes(t.getReturnType());
                    Arrays.stream(t.getArgumentTypes()).forEach(this::descriptorTypes);
                }
                case Type.ARRAY -> descriptorTypes(t.getElementType());
                case Type.OBJECT -> type(t.getInternalName());
                default -> { }
            }
        }

        private void type(String internalName) {
            if (internalName != null && isTomcat(internalName) && model.shape(internalName) == null) {
                problems.add("missing class " + internalName + " (used by " + className + ")");
            }
        }

        private void method(String owner, String name, String descriptor) {
            descriptorTypes(Type.getMethodType(descriptor));
            if (owner.startsWith("[") || !(isTomcat(owner) || isOwn(owner))) {
                return;
            }
            if (model.resolveMethod(owner, name, descriptor) == null) {
                problems.add("missing method " + owner + "." + name + descriptor + " (used by " + className + ")");
            }
        }

        private void field(String owner, String name, String descriptor) {
            descriptorTypes(Type.getType(descriptor));
            if ((isTomcat(owner) || isOwn(owner)) && model.resolveField(owner, name, descriptor) == null) {
                problems.add("missing field " + owner + "." + name + " " + descriptor + " (used by " + className + ")");
            }
        }

        /** A connector method that overrides one Tomcat declares final fails to load (VerifyError). */
        private void noFinalOverridden(String name, String descriptor) {
            ClassModel.Shape self = model.shape(className);
            for (String s = self.superName(); s != null; ) {
                ClassModel.Shape superShape = model.shape(s);
                if (superShape == null) {
                    return;
                }
                Integer access = superShape.methods().get(name + descriptor);
                if (access != null && isTomcat(s) && ClassModel.isFinal(access)
                        && (access & Opcodes.ACC_PRIVATE) == 0) {
                    problems.add("overrides final " + s + "." + name + descriptor + " (in " + className + ")");
                }
                s = superShape.superName();
            }
        }

        /** Every abstract method a Tomcat super class or interface declares has a concrete implementation. */
        private void abstractMethodsImplemented(String name) {
            Set<String> seen = new TreeSet<>();
            collectAbstract(name, seen);
            for (String member : seen) {
                if (!implemented(name, member)) {
                    problems.add("unimplemented abstract " + member + " (in " + className + ")");
                }
            }
        }

        private void collectAbstract(String name, Set<String> into) {
            ClassModel.Shape c = model.shape(name);
            if (c == null) {
                return;
            }
            if (isTomcat(name)) {
                for (Map.Entry<String,Integer> m : c.methods().entrySet()) {
                    if ((m.getValue() & Opcodes.ACC_ABSTRACT) != 0) {
                        into.add(m.getKey());
                    }
                }
            }
            if (c.superName() != null) {
                collectAbstract(c.superName(), into);
            }
            c.interfaces().forEach(i -> collectAbstract(i, into));
        }

        private boolean implemented(String name, String member) {
            for (ClassModel.Shape c = model.shape(name); c != null;
                    c = c.superName() == null ? null : model.shape(c.superName())) {
                Integer access = c.methods().get(member);
                if (access != null && (access & Opcodes.ACC_ABSTRACT) == 0) {
                    return true;
                }
            }
            return defaultMethod(name, member);
        }

        private boolean defaultMethod(String name, String member) {
            ClassModel.Shape c = model.shape(name);
            if (c == null) {
                return false;
            }
            for (String i : c.interfaces()) {
                ClassModel.Shape shape = model.shape(i);
                if (shape == null) {
                    continue;
                }
                Integer access = shape.methods().get(member);
                if (access != null && (access & Opcodes.ACC_ABSTRACT) == 0 || defaultMethod(i, member)) {
                    return true;
                }
            }
            return c.superName() != null && defaultMethod(c.superName(), member);
        }
    }
}
