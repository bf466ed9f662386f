# `cuobjdump -sass LIB | python3 sass_digest.py`: a line a kernel, its name and the sha1 of its
# instructions (addresses, encodings and comments dropped; an anonymous namespace, named after its
# file, written ANON), sorted: two libraries' digests diff to the kernels whose code changed.
import hashlib, re, sys
funcs, name, body = {}, None, []
for line in sys.stdin:
    m = re.match(r"\s*Function : (\S+)", line)
    if m:
        if name: funcs[name] = hashlib.sha1("\n".join(body).encode()).hexdigest()
        name, body = re.sub(r"_GLOBAL__N__[0-9a-f]+_[0-9]+_\w+?_[0-9a-f]{8}", "ANON", m.group(1)), []
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;", line)
    if m and name: body.append(m.group(1))
if name: funcs[name] = hashlib.sha1("\n".join(body).encode()).hexdigest()
for k in sorted(funcs): print(k, funcs[k])
