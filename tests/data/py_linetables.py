"""Writes the location tables of a sample module's code objects with the
line of every code unit, as CPython computes it (co_lines)."""
import sys, types
SRC = '''
import os
def simple(a, b):
    c = a + b
    return c
def loops(n):
    total = 0
    for i in range(n):
        if i % 2:
            total += i
        else:
            total -= 1
    while total > 100:
        total //= 2
    return total
def multiline(x):
    y = (x +
         1 +
         2)
    return [i
            for i in range(y)
            if i]
def far(x):
    try:
        x = 1 / x
    except ZeroDivisionError:
        x = 0
    finally:
        pass
''' + "\n" * 300 + '''
    return x
class K:
    def method(self):
        with open(os.devnull) as f:
            return f.read()
'''
def walk(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from walk(c)
code = compile(SRC, "sample.py", "exec")
print("# python", sys.version.split()[0])
for co in walk(code):
    pairs = []
    for start, end, line in co.co_lines():
        for off in range(start, end, 2):
            pairs.append("%d:%d" % (off, line or 0))
    print(co.co_name, co.co_firstlineno, co.co_linetable.hex(), " ".join(pairs))
