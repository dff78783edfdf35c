package io.hybridconnector.compat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The shape of the classes one Tomcat release and the connector make together: for each class its super class,
 * interfaces, and declared methods and fields with their access flags, read from class files (the connector's
 * {@code target/classes}, one {@code tomcat-embed-core} jar) or, for JDK classes, by reflection. Lookups follow the
 * JVM's resolution rules (JVMS 5.4.3.3-4: the class, its super classes, then its super interfaces). One thread.
 */
final class ClassModel implements AutoCloseable {

    /** One class: what resolution and the override checks need. */
    record Shape(String name, String superName, List<String> interfaces, int access,
            Map<String,Integer> methods, Map<String,Integer> fields) {

        boolean isInterface() {
            return (access & Opcodes.ACC_INTERFACE) != 0;
        }

        boolean isAbstract() {
            return (access & Opcodes.ACC_ABSTRACT) != 0;
        }
    }

    private final Path ownClasses;
    private final JarFile tomcat;
    private final Map<String,Shape> shapes = new HashMap<>();

    ClassModel(Path ownClasses, Path tomcatJar) throws IOException {
        this.ownClasses = ownClasses;
        this.tomcat = new JarFile(tomcatJar.toFile());
    }

    /** @return the class, or null when neither the connector, this Tomcat nor the JDK has it */
    Shape shape(String internalName) {
        if (shapes.containsKey(internalName)) {
            return shapes.get(internalName);
        }
        Shape shape = read(internalName);
        shapes.put(internalName, shape);
        return shape;
    }

    /** @return the class that declares the method as resolution finds it from {@code owner}, or null */
    Shape resolveMethod(String owner, String name, String descriptor) {
        Set<String> seen = new HashSet<>();
        for (Shape c = shape(owner); c != null; c = c.superName() == null ? null : shape(c.superName())) {
            if (c.methods().containsKey(name + descriptor)) {
                return c;
            }
            if (c.superName() != null && shape(c.superName()) == null) {
                return null;
            }
        }
        return resolveInInterfaces(owner, name + descriptor, seen);
    }

    private Shape resolveInInterfaces(String owner, String member, Set<String> seen) {
        for (Shape c = shape(owner); c != null; c = c.superName() == null ? null : shape(c.superName())) {
            for (String i : c.interfaces()) {
                if (!seen.add(i)) {
                    continue;
                }
                Shape shape = shape(i);
                if (shape == null) {
                    continue;
                }
                if (shape.methods().containsKey(member)) {
                    return shape;
                }
                Shape inherited = resolveInInterfaces(i, member, seen);
                if (inherited != null) {
                    return inherited;
                }
            }
        }
        return null;
    }

    /** @return the class that declares the field as resolution finds it from {@code owner}, or null */
    Shape resolveField(String owner, String name, String descriptor) {
        Shape c = shape(owner);
        if (c == null) {
            return null;
        }
        if (c.fields().containsKey(name + descriptor)) {
            return c;
        }
        for (String i : c.interfaces()) {
            Shape found = resolveField(i, name, descriptor);
            if (found != null) {
                return found;
            }
        }
        return c.superName() == null ? null : resolveField(c.superName(), name, descriptor);
    }

    private Shape read(String internalName) {
        try {
            Path own = ownClasses.resolve(internalName + ".class");
            if (Files.isRegularFile(own)) {
                try (InputStream in = Files.newInputStream(own)) {
                    return parse(in);
                }
            }
            ZipEntry entry = tomcat.getEntry(internalName + ".class");
            if (entry != null) {
                try (InputStream in = tomcat.getInputStream(entry)) {
                    return parse(in);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fromJdk(internalName);
    }

    private static Shape parse(InputStream in) throws IOException {
        Map<String,Integer> methods = new HashMap<>();
        Map<String,Integer> fields = new HashMap<>();
        Shape[] result = new Shape[1];
        new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
            private String name;
            private String superName;
            private List<String> interfaces;
            private int access;

            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                    String[] interfaces) {
                this.name = name;
                this.superName = superName;
                this.interfaces = List.of(interfaces);
                this.access = access;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                methods.put(name + descriptor, access);
                return null;
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                    Object value) {
                fields.put(name + descriptor, access);
                return null;
            }

            @Override
            public void visitEnd() {
                result[0] = new Shape(name, superName, interfaces, access, methods, fields);
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return result[0];
    }

    /** JDK classes by reflection: the test runs on the JDK the connector runs on. */
    private static Shape fromJdk(String internalName) {
        if (internalName.startsWith("org/apache/") || internalName.startsWith("io/hybridconnector/")) {
            return null;
        }
        Class<?> c;
        try {
            c = Class.forName(internalName.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        Map<String,Integer> methods = new HashMap<>();
        for (Method m : c.getDeclaredMethods()) {
            methods.put(m.getName() + Type.getMethodDescriptor(m), m.getModifiers());
        }
        for (var k : c.getDeclaredConstructors()) {
            methods.put("<init>" + Type.getConstructorDescriptor(k), k.getModifiers());
        }
        Map<String,Integer> fields = new HashMap<>();
        for (Field f : c.getDeclaredFields()) {
            fields.put(f.getName() + Type.getDescriptor(f.getType()), f.getModifiers());
        }
        int access = c.getModifiers() | (c.isInterface() ? Opcodes.ACC_INTERFACE : 0);
        List<String> interfaces = java.util.Arrays.stream(c.getInterfaces()).map(Type::getInternalName).toList();
        String superName = c.getSuperclass() == null ? null : Type.getInternalName(c.getSuperclass());
        return new Shape(internalName, superName, interfaces, access, methods, fields);
    }

    static boolean isFinal(int access) {
        return Modifier.isFinal(access);
    }

    @Override
    public void close() throws IOException {
        tomcat.close();
    }
}
