/* Optional C speedups for agent.parse (the pure-Python code stays the reference and fallback).
 *
 * Implements exactly what these Python functions do, so either path gives byte-identical chunks
 * (tests/parse/test_speedups.py checks it on the bench corpus, the fixtures and odd input):
 *
 *   mask_comments(text)        agent.parse.facts.mask_comments
 *   scan(masked)               agent.parse.scan.scan
 *   scan_rows(masked, ranges)  agent.parse.scan.scan_facts over "\n".join(rows[start:end]) for each
 *                              (start, end) row range, without building the joined strings: one
 *                              pass finds the line starts, then each range is scanned in place.
 *   chunk_facts(masked, no_comments, ranges)
 *                              agent.parse.facts.FileFacts.chunks: scan_rows plus node paths, res://
 *                              refs, connect() forms and the facts dict, for every range in one call.
 *
 * Strings of any kind (1, 2 or 4 bytes per char) are read with PyUnicode_READ and every index is
 * checked against the string's length, so no input can read past the buffer. Results are built
 * with PyUnicode_Substring / PyUnicode_FromKindAndData, which give canonical (smallest-kind)
 * strings, as Python's own slicing does; a non-canonical str would compare unequal to an equal one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* ---- character classes, as Python's `re` defines them for str patterns ---------------------- */

/* `\w`: Unicode alphanumeric or '_' (sre: Py_UNICODE_ISALNUM(ch) || ch == '_'). */
static inline int is_word(Py_UCS4 c)
{
    if (c < 128)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    return Py_UNICODE_ISALNUM(c);
}

/* `\d`: Unicode decimal digit (sre: Py_UNICODE_ISDECIMAL). */
static inline int is_digit(Py_UCS4 c)
{
    if (c < 128)
        return c >= '0' && c <= '9';
    return Py_UNICODE_ISDECIMAL(c);
}

/* `[A-Za-z_]`, scan.py's _NAME_START */
static inline int is_name_start(Py_UCS4 c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* ---- keywords (scan.KEYWORDS and the subsets the state machine tests) ----------------------- */

enum { KW = 1, KW_DECLARES = 2, KW_CALLABLE = 4, KW_FUNC = 8 };

static const struct {
    const char *name;
    int flags;
} KEYWORD_TABLE[] = {
    {"if", KW}, {"elif", KW}, {"else", KW}, {"for", KW | KW_DECLARES}, {"while", KW}, {"match", KW},
    {"break", KW}, {"continue", KW}, {"pass", KW}, {"return", KW}, {"class", KW | KW_DECLARES},
    {"class_name", KW | KW_DECLARES}, {"extends", KW}, {"is", KW}, {"in", KW}, {"as", KW}, {"self", KW},
    {"signal", KW | KW_DECLARES}, {"func", KW | KW_DECLARES | KW_FUNC}, {"static", KW},
    {"const", KW | KW_DECLARES}, {"enum", KW | KW_DECLARES}, {"var", KW | KW_DECLARES}, {"onready", KW},
    {"export", KW}, {"setget", KW}, {"tool", KW}, {"breakpoint", KW}, {"preload", KW | KW_CALLABLE},
    {"await", KW}, {"yield", KW | KW_CALLABLE}, {"remote", KW}, {"master", KW}, {"puppet", KW},
    {"remotesync", KW}, {"mastersync", KW}, {"puppetsync", KW}, {"sync", KW}, {"slave", KW},
    {"and", KW}, {"or", KW}, {"not", KW}, {"true", KW}, {"false", KW}, {"null", KW}, {"void", KW},
    {"super", KW | KW_CALLABLE}, {"when", KW}, {"get", KW}, {"set", KW}, {"PI", KW}, {"TAU", KW},
    {"INF", KW}, {"NAN", KW},
};
#define N_KEYWORDS ((int)(sizeof(KEYWORD_TABLE) / sizeof(KEYWORD_TABLE[0])))
#define KW_MAXLEN 10
/* keyword indices bucketed by length, so a name is compared with a handful of keywords at most */
static int kw_bucket[KW_MAXLEN + 1][N_KEYWORDS + 1];

static void init_keywords(void)
{
    int fill[KW_MAXLEN + 1] = {0};
    for (int i = 0; i < N_KEYWORDS; i++) {
        size_t n = strlen(KEYWORD_TABLE[i].name);
        if (n <= KW_MAXLEN)
            kw_bucket[n][fill[n]++] = i;
    }
    for (int n = 0; n <= KW_MAXLEN; n++)
        kw_bucket[n][fill[n]] = -1;
}

/* Flags of the keyword text[s:e] is, or 0 when it is none. */
static inline __attribute__((always_inline)) int keyword_flags(int kind, const void *data, Py_ssize_t s, Py_ssize_t e)
{
    Py_ssize_t n = e - s;
    char buf[KW_MAXLEN];
    if (n < 2 || n > KW_MAXLEN)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, s + i);
        if (c >= 128)
            return 0;
        buf[i] = (char)c;
    }
    for (const int *k = kw_bucket[n]; *k >= 0; k++)
        if (KEYWORD_TABLE[*k].name[0] == buf[0] && memcmp(KEYWORD_TABLE[*k].name, buf, (size_t)n) == 0)
            return KEYWORD_TABLE[*k].flags;
    return 0;
}

/* ---- mask_comments ------------------------------------------------------------------------ */

/* Copy text[s:e] into out at *pos; out has the same kind as text. */
static inline void copy_span(char *out, Py_ssize_t *pos, const char *data, int kind, Py_ssize_t s, Py_ssize_t e)
{
    if (e > s) {
        memcpy(out + *pos * kind, data + s * kind, (size_t)(e - s) * kind);
        *pos += e - s;
    }
}

/* End (exclusive) of the `_MASK` match that starts at i, where text[i] is '#', '"' or '\''.
 * Alternatives, in regex order:  """...(""" or end)  |  '''...(''' or end)
 *   |  "(\\.|[^"\\\n])*"?  |  '(\\.|[^'\\\n])*'?  |  #[^\n]*
 * Sets *newlines to the line breaks inside (only a triple-quoted string can hold any). */
static Py_ssize_t mask_match_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *newlines)
{
    Py_UCS4 q = PyUnicode_READ(kind, data, i);
    Py_ssize_t j;
    *newlines = 0;
    if (q == '#') {
        for (j = i + 1; j < n && PyUnicode_READ(kind, data, j) != '\n'; j++)
            ;
        return j;
    }
    if (i + 2 < n && PyUnicode_READ(kind, data, i + 1) == q && PyUnicode_READ(kind, data, i + 2) == q) {
        /* triple quote: lazily up to the first closing triple, else to the end of the text */
        for (j = i + 3; j < n; j++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, j);
            if (c == q && j + 2 < n && PyUnicode_READ(kind, data, j + 1) == q &&
                PyUnicode_READ(kind, data, j + 2) == q)
                return j + 3;
            if (c == '\n')
                (*newlines)++;
        }
        return n;
    }
    /* one-line string: escapes `\\.` (`.` is not a line break), stop at the closing quote,
     * a line break or a backslash that escapes nothing; the closing quote is optional */
    j = i + 1;
    while (j < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (c == '\\') {
            if (j + 1 < n && PyUnicode_READ(kind, data, j + 1) != '\n') {
                j += 2;
                continue;
            }
            return j;
        }
        if (c == q)
            return j + 1;
        if (c == '\n')
            return j;
        j++;
    }
    return j;
}

static PyObject *sp_mask_comments(PyObject *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "mask_comments() argument must be str");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0)
        return NULL;
    int kind = PyUnicode_KIND(text);
    const char *data = (const char *)PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);

    Py_ssize_t first = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '#' || c == '"' || c == '\'') {
            first = i;
            break;
        }
    }
    if (first < 0)
        return PyTuple_Pack(2, text, text);

    /* masked can outgrow the text: a lone `"` (1 char) becomes `""` (2 chars) */
    if (n > (PY_SSIZE_T_MAX / 2 - 2) / 4) {
        PyErr_NoMemory();
        return NULL;
    }
    char *nc = PyMem_Malloc((size_t)n * kind + 1);
    char *mk = PyMem_Malloc(((size_t)n * 2 + 2) * kind);
    PyObject *result = NULL;
    if (nc == NULL || mk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t nc_len = 0, mk_len = 0, pos = 0, nc_pos = 0;
    for (Py_ssize_t i = first; i < n;) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c != '#' && c != '"' && c != '\'') {
            i++;
            continue;
        }
        Py_ssize_t newlines;
        Py_ssize_t end = mask_match_end(kind, data, n, i, &newlines);
        copy_span(mk, &mk_len, data, kind, pos, i);
        if (c == '#') {
            copy_span(nc, &nc_len, data, kind, nc_pos, i);  /* comments leave both texts */
            nc_pos = end;
        }
        else {  /* a string keeps its line breaks: `""`, or `"` + "\n" * count + `"` */
            PyUnicode_WRITE(kind, mk, mk_len++, '"');
            for (Py_ssize_t k = 0; k < newlines; k++)
                PyUnicode_WRITE(kind, mk, mk_len++, '\n');
            PyUnicode_WRITE(kind, mk, mk_len++, '"');
        }
        pos = end;
        i = end;
    }
    copy_span(mk, &mk_len, data, kind, pos, n);
    copy_span(nc, &nc_len, data, kind, nc_pos, n);

    PyObject *a = PyUnicode_FromKindAndData(kind, nc, nc_len);  /* canonical: shrinks the kind if it can */
    PyObject *b = a ? PyUnicode_FromKindAndData(kind, mk, mk_len) : NULL;
    if (b != NULL)
        result = PyTuple_Pack(2, a, b);
    Py_XDECREF(a);
    Py_XDECREF(b);
done:
    PyMem_Free(nc);
    PyMem_Free(mk);
    return result;
}

/* ---- interned names: one str per distinct name per file -------------------------------------- */

/* Open-addressing table from a span of the text to the str holding it, so a name used in many
 * chunks of a file is one object (fewer allocations, and its hash is computed once). Each entry
 * also remembers the last chunk that listed it as an identifier / declared name, which replaces
 * a per-chunk set for `dict.fromkeys`-style de-duplication. */
typedef struct {
    PyObject *value; /* NULL: empty slot */
    Py_ssize_t start, len;
    size_t hash;
    Py_ssize_t ident_chunk, decl_chunk; /* chunk number + 1 of the last listing, 0 never */
} Slot;

typedef struct {
    Slot *slots;
    size_t cap, used;
    PyObject *text;
    int kind;
    const char *data;
} Names;

static int names_init(Names *t, PyObject *text)
{
    t->cap = 256;
    t->used = 0;
    t->text = text;
    t->kind = PyUnicode_KIND(text);
    t->data = (const char *)PyUnicode_DATA(text);
    t->slots = PyMem_Calloc(t->cap, sizeof(Slot));
    if (t->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void names_free(Names *t)
{
    for (size_t i = 0; t->slots != NULL && i < t->cap; i++)
        Py_XDECREF(t->slots[i].value);
    PyMem_Free(t->slots);
    t->slots = NULL;
}

static int names_grow(Names *t)
{
    if (t->cap > (size_t)PY_SSIZE_T_MAX / 2 / sizeof(Slot)) {
        PyErr_NoMemory();
        return -1;
    }
    size_t cap = t->cap * 2;
    Slot *slots = PyMem_Calloc(cap, sizeof(Slot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].value == NULL)
            continue;
        size_t k = t->slots[i].hash & (cap - 1);
        while (slots[k].value != NULL)
            k = (k + 1) & (cap - 1);
        slots[k] = t->slots[i];
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* The entry for text[s:e], created (with its str) on first use; NULL on error. The pointer is
 * valid until the next call (the table may grow). */
static Slot *names_get(Names *t, Py_ssize_t s, Py_ssize_t e)
{
    int kind = t->kind;
    size_t nbytes = (size_t)(e - s) * kind;
    const unsigned char *p = (const unsigned char *)t->data + s * kind;
    size_t h = 1469598103934665603ULL; /* FNV-1a over the span's bytes */
    for (size_t i = 0; i < nbytes; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    size_t k = h & (t->cap - 1);
    while (t->slots[k].value != NULL) {
        Slot *sl = &t->slots[k];
        if (sl->hash == h && sl->len == e - s && memcmp(t->data + sl->start * kind, p, nbytes) == 0)
            return sl;
        k = (k + 1) & (t->cap - 1);
    }
    if ((t->used + 1) * 2 > t->cap) {
        if (names_grow(t) < 0)
            return NULL;
        k = h & (t->cap - 1);
        while (t->slots[k].value != NULL)
            k = (k + 1) & (t->cap - 1);
    }
    PyObject *value = PyUnicode_Substring(t->text, s, e);
    if (value == NULL)
        return NULL;
    Slot *sl = &t->slots[k];
    sl->value = value;
    sl->start = s;
    sl->len = e - s;
    sl->hash = h;
    sl->ident_chunk = sl->decl_chunk = 0;
    t->used++;
    return sl;
}

/* `f"{prev}.{last}"`, built directly (canonical: the widest kind of the two parts). */
static PyObject *dotted_name(PyObject *a, PyObject *b)
{
    Py_ssize_t la = PyUnicode_GET_LENGTH(a), lb = PyUnicode_GET_LENGTH(b);
    Py_UCS4 ma = PyUnicode_MAX_CHAR_VALUE(a), mb = PyUnicode_MAX_CHAR_VALUE(b);
    PyObject *r = PyUnicode_New(la + 1 + lb, ma > mb ? ma : mb);
    if (r == NULL)
        return NULL;
    if (PyUnicode_CopyCharacters(r, 0, a, 0, la) < 0 || PyUnicode_WriteChar(r, la, '.') < 0 ||
        PyUnicode_CopyCharacters(r, la + 1, b, 0, lb) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* Append item (a str) to list unless it is already listed; steals the reference to item.
 * Short lists are searched directly; *seen, a set of the list's items, is made (and then kept
 * up to date) once the list reaches UNIQUE_LINEAR items, or may be passed in already made. */
#define UNIQUE_LINEAR 16
static int append_unique(PyObject *list, PyObject **seen, PyObject *item)
{
    int r = 0;
    if (item == NULL)
        return -1;
    if (*seen == NULL) {
        Py_ssize_t n = PyList_GET_SIZE(list);
        for (Py_ssize_t i = 0; i < n && r == 0; i++) {
            PyObject *x = PyList_GET_ITEM(list, i);
            r = x == item || (PyUnicode_GET_LENGTH(x) == PyUnicode_GET_LENGTH(item) && PyUnicode_Compare(x, item) == 0);
        }
        if (r == 0 && PyList_Append(list, item) < 0)
            r = -1;
        if (r == 0 && n + 1 >= UNIQUE_LINEAR && (*seen = PySet_New(list)) == NULL)
            r = -1;
    }
    else {
        r = PySet_Contains(*seen, item);
        if (r == 0)
            r = PySet_Add(*seen, item) < 0 || PyList_Append(list, item) < 0 ? -1 : 0;
    }
    Py_DECREF(item);
    return r < 0 ? -1 : 0;
}

/* str.isupper() of a str, as CPython's unicode_isupper_impl computes it. */
static int str_isupper(PyObject *u)
{
    int kind = PyUnicode_KIND(u), cased = 0;
    const void *data = PyUnicode_DATA(u);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(u); i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISLOWER(c) || Py_UNICODE_ISTITLE(c))
            return 0;
        if (!cased && Py_UNICODE_ISUPPER(c))
            cased = 1;
    }
    return cased;
}

/* True when text[s:e] contains the ASCII string lit. */
static inline __attribute__((always_inline)) int span_contains(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, const char *lit)
{
    Py_ssize_t m = (Py_ssize_t)strlen(lit);
    for (Py_ssize_t i = s; i + m <= e; i++) {
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)(unsigned char)lit[0])
            continue;
        Py_ssize_t k = 1;
        while (k < m && PyUnicode_READ(kind, data, i + k) == (Py_UCS4)(unsigned char)lit[k])
            k++;
        if (k == m)
            return 1;
    }
    return 0;
}

enum { CUE_PATH = 1, CUE_CONNECT = 2 }; /* scan.CUE_PATH, scan.CUE_CONNECT */

/* scan.scan over text[s:e] (the tokenizer `TOKEN` and the chain state machine, line for line).
 * chunk: this range's number + 1, for the per-chunk de-duplication stamps in `names`.
 * extras=0: (identifiers, declared, calls, has_lambda)
 * extras=1: that plus (symbols, cues), as scan.scan_facts returns them. */
static inline __attribute__((always_inline)) PyObject *scan_span_body(Names *names, Py_ssize_t s, Py_ssize_t e,
                                                                      Py_ssize_t chunk, int extras, int kind)
{
    const char *data = names->data;
    PyObject *identifiers = PyList_New(0), *declared = PyList_New(0), *calls = PyList_New(0);
    PyObject *cseen = NULL, *symbols = NULL, *result = NULL;
    if (!identifiers || !declared || !calls)
        goto done;

    /* the chain's last two links, as interned strs (borrowed from `names`) and first chars */
    PyObject *prev = NULL, *last = NULL;
    Py_UCS4 prev_c0 = 0;
    int last_kw = 0;
    int links = 0, dotted = 0, declare_next = 0 /* 0, or the KW flags of var/func/... */;
    Py_ssize_t params_depth = 0;
    int expect_param = 0, after_func = 0, has_lambda = 0, has_sigil = 0;
#define PREV_UPPER() (prev_c0 >= 'A' && prev_c0 <= 'Z')
#define ADD_CHAIN_CALL()                                                                              \
    if (append_unique(calls, &cseen, dotted_name(prev, last)) < 0)                                     \
        goto done;

    Py_ssize_t i = s;
    while (i < e) {
        /* TOKEN = [A-Za-z_]\w* | [$%][\w/%]* | @\w* | \d[\w.]* | [.()\[\],{}] ; other chars skipped */
        Py_UCS4 c = PyUnicode_READ(kind, data, i), d;
        Py_ssize_t ts = i, te;
        if (is_name_start(c)) {
            for (te = i + 1; te < e && is_word(PyUnicode_READ(kind, data, te)); te++)
                ;
        }
        else if (c == '$' || c == '%') {
            for (te = i + 1; te < e && (is_word(d = PyUnicode_READ(kind, data, te)) || d == '/' || d == '%'); te++)
                ;
            has_sigil = 1;
        }
        else if (c == '@') {
            for (te = i + 1; te < e && is_word(PyUnicode_READ(kind, data, te)); te++)
                ;
        }
        else if (is_digit(c)) {
            for (te = i + 1; te < e && (is_word(d = PyUnicode_READ(kind, data, te)) || d == '.'); te++)
                ;
        }
        else if (c == '.' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == '{' || c == '}') {
            te = i + 1;
        }
        else {
            i++;
            continue;
        }
        i = te;

        if (is_name_start(c)) {
            int kw = keyword_flags(kind, data, ts, te);
            Slot *sl = names_get(names, ts, te);
            if (sl == NULL)
                goto done;
            PyObject *tok = sl->value;
            if (!(kw & KW) && sl->ident_chunk != chunk) { /* identifiers: first use, no keywords */
                sl->ident_chunk = chunk;
                if (PyList_Append(identifiers, tok) < 0)
                    goto done;
            }
            if (declare_next || expect_param) {
                if (sl->decl_chunk != chunk) {
                    sl->decl_chunk = chunk;
                    if (PyList_Append(declared, tok) < 0)
                        goto done;
                }
            }
            if (declare_next) {
                after_func = (declare_next & KW_FUNC) != 0;
                declare_next = 0;
                links = 0;
                dotted = 0;
                continue;
            }
            expect_param = 0;
            if (dotted && links) {
                prev = last;
                prev_c0 = PyUnicode_READ_CHAR(prev, 0);
                links = 2;
            }
            else {
                if (links > 1 && PREV_UPPER()) {
                    ADD_CHAIN_CALL();
                }
                links = 1;
            }
            last = tok;
            last_kw = kw;
            dotted = 0;
            if (kw & KW_DECLARES) {
                declare_next = kw;
                links = 0;
                if (kw & KW_FUNC)
                    after_func = 1; /* a lambda: `func(` opens its parameters */
            }
            continue;
        }
        if (c == '.') {
            dotted = 1;
            continue;
        }
        if (c == '(') {
            if (after_func) {
                after_func = 0;
                has_lambda = has_lambda || (declare_next & KW_FUNC); /* `func(`: no name, so a lambda */
                declare_next = 0;
                params_depth = 1;
                expect_param = 1;
                links = 0;
                continue;
            }
            if (links > 1) {
                ADD_CHAIN_CALL();
            }
            else if (links && (!(last_kw & KW) || (last_kw & KW_CALLABLE))) {
                Py_INCREF(last);
                if (append_unique(calls, &cseen, last) < 0)
                    goto done;
            }
            if (params_depth)
                params_depth++;
            links = 0;
            dotted = 0;
            continue;
        }
        if (params_depth) {
            if (c == ')') {
                params_depth--;
                expect_param = expect_param && params_depth > 0;
            }
            else if (c == ',' && params_depth == 1)
                expect_param = 1;
        }
        if (links > 1 && PREV_UPPER()) {
            ADD_CHAIN_CALL();
        }
        if (c == '$' || c == '%') {
            if (!dotted) { /* `$Node` / `%Unique` starts a chain; after a `.` it leaves the chain as is */
                Slot *sl = names_get(names, ts, te);
                if (sl == NULL)
                    goto done;
                last = sl->value;
                last_kw = 0;
                links = 1;
            }
        }
        else
            links = 0;
        dotted = 0;
        after_func = 0;
    }
    if (links > 1 && PREV_UPPER()) {
        ADD_CHAIN_CALL();
    }
#undef ADD_CHAIN_CALL
#undef PREV_UPPER

    if (!extras) {
        result = Py_BuildValue("(OOOO)", identifiers, declared, calls, has_lambda ? Py_True : Py_False);
        goto done;
    }
    /* symbols: capitalised identifiers that are not all caps (`i[0].isupper() and not i.isupper()`) */
    symbols = PyList_New(0);
    if (symbols == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(identifiers); k++) {
        PyObject *ident = PyList_GET_ITEM(identifiers, k);
        Py_UCS4 c0 = PyUnicode_READ_CHAR(ident, 0); /* a name is never empty */
        if (c0 >= 'A' && c0 <= 'Z' && !str_isupper(ident) && PyList_Append(symbols, ident) < 0)
            goto done;
    }
    int cues = 0;
    if (has_sigil || span_contains(kind, data, s, e, "get_node"))
        cues |= CUE_PATH;
    if (span_contains(kind, data, s, e, "connect"))
        cues |= CUE_CONNECT;
    result = Py_BuildValue("(OOOOOi)", identifiers, declared, calls, has_lambda ? Py_True : Py_False, symbols, cues);
done:
    Py_XDECREF(identifiers);
    Py_XDECREF(declared);
    Py_XDECREF(calls);
    Py_XDECREF(cseen);
    Py_XDECREF(symbols);
    return result;
}

static PyObject *scan_span(Names *names, Py_ssize_t s, Py_ssize_t e, Py_ssize_t chunk, int extras)
{
    if (names->kind == PyUnicode_1BYTE_KIND) /* the usual case: the same code, with byte loads */
        return scan_span_body(names, s, e, chunk, extras, PyUnicode_1BYTE_KIND);
    return scan_span_body(names, s, e, chunk, extras, names->kind);
}

static PyObject *sp_scan(PyObject *self, PyObject *masked)
{
    if (!PyUnicode_Check(masked)) {
        PyErr_SetString(PyExc_TypeError, "scan() argument must be str");
        return NULL;
    }
    if (PyUnicode_READY(masked) < 0)
        return NULL;
    Names names;
    if (names_init(&names, masked) < 0)
        return NULL;
    PyObject *r = scan_span(&names, 0, PyUnicode_GET_LENGTH(masked), 1, 0);
    names_free(&names);
    return r;
}

/* ---- line-local syntax cues (facts._FLAGS, facts._RPC, facts._ANNOTATION), per row ----------- */

/* bit i of a row's cues <=> FLAG_NAMES[i] (the keys of facts._FLAGS, in order) matched on it */
static const char *FLAG_NAMES[] = {
    "tool", "export_keyword", "onready_keyword", "setget", "yield", "await", "typed_array", "super_call",
    "property_accessors",
};
enum { F_TOOL = 1, F_EXPORT = 2, F_ONREADY = 4, F_SETGET = 8, F_YIELD = 16, F_AWAIT = 32, F_TYPED_ARRAY = 64,
       F_SUPER = 128, F_PROPERTY = 256 };
#define N_FLAGS ((int)(sizeof(FLAG_NAMES) / sizeof(FLAG_NAMES[0])))
static const char *RPC_WORDS[] = {"remotesync", "mastersync", "puppetsync", "remote", "master", "puppet", "sync", "slave"};
#define N_RPC ((int)(sizeof(RPC_WORDS) / sizeof(RPC_WORDS[0])))

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

/* Inlined into a caller that fixes `kind` (see file_cues), PyUnicode_READ folds to a plain load. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE Py_UCS4 at(const Text *t, Py_ssize_t i) { return i < t->n ? PyUnicode_READ(t->kind, t->data, i) : 0; }
ALWAYS_INLINE int word_at(const Text *t, Py_ssize_t i) { return i < t->n && is_word(PyUnicode_READ(t->kind, t->data, i)); }
ALWAYS_INLINE Py_ssize_t skip_blank(const Text *t, Py_ssize_t i)
{
    Py_UCS4 c;
    while (i < t->n && ((c = PyUnicode_READ(t->kind, t->data, i)) == ' ' || c == '\t'))
        i++;
    return i;
}
ALWAYS_INLINE int lit_at(const Text *t, Py_ssize_t i, const char *lit)
{
    for (; *lit; lit++, i++)
        if (i >= t->n || PyUnicode_READ(t->kind, t->data, i) != (Py_UCS4)(unsigned char)*lit)
            return 0;
    return 1;
}
/* `lit\b` at i, for a lit that ends with a word char */
ALWAYS_INLINE int word_lit_at(const Text *t, Py_ssize_t i, const char *lit)
{
    return lit_at(t, i, lit) && !word_at(t, i + (Py_ssize_t)strlen(lit));
}

/* Cues of the row starting at rs (after a line break or at 0) and ending at re (its "\n" or n).
 * *rpc gets the index in RPC_WORDS of the rpc keyword the row starts with, or -1. */
ALWAYS_INLINE int row_cues(const Text *t, Py_ssize_t rs, Py_ssize_t re, int *rpc)
{
    int bits = 0;
    /* line-start patterns (searched in "\n" + text, so they start right after a line break) */
    if (word_lit_at(t, rs, "tool") || word_lit_at(t, rs, "@tool"))
        bits |= F_TOOL; /* \n(?:tool|@tool)\b */
    Py_ssize_t j = skip_blank(t, rs);
    if (word_lit_at(t, j, "export"))
        bits |= F_EXPORT; /* \n[ \t]*export\b */
    if (word_lit_at(t, j, "onready"))
        bits |= F_ONREADY;
    if (j > rs) { /* \n[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*: */
        Py_ssize_t k = -1;
        if (lit_at(t, j, "set")) {
            k = skip_blank(t, j + 3);
            if (at(t, k) == '(') {
                Py_ssize_t w = skip_blank(t, k + 1), w0 = w;
                while (word_at(t, w))
                    w++;
                k = (w > w0 && at(t, skip_blank(t, w)) == ')') ? skip_blank(t, w) + 1 : -1;
            }
            else
                k = -1;
        }
        else if (lit_at(t, j, "get"))
            k = j + 3;
        if (k >= 0 && at(t, skip_blank(t, k)) == ':')
            bits |= F_PROPERTY;
    }
    /* \n[ \t]*(remotesync|...|slave)[ \t]+(?:func|var|static)\b, alternatives tried in order */
    *rpc = -1;
    for (int w = 0; w < N_RPC; w++) {
        if (!lit_at(t, j, RPC_WORDS[w]))
            continue;
        Py_ssize_t k = j + (Py_ssize_t)strlen(RPC_WORDS[w]);
        if (at(t, k) != ' ' && at(t, k) != '\t')
            continue;
        k = skip_blank(t, k);
        if (word_lit_at(t, k, "func") || word_lit_at(t, k, "var") || word_lit_at(t, k, "static")) {
            *rpc = w;
            break;
        }
    }
    /* anywhere in the row, each after a non-word char: `X(?<!\wX)` */
    for (Py_ssize_t i = rs; i < re; i++) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if ((c != 's' && c != 'y' && c != 'a' && c != 'A') || (i > 0 && word_at(t, i - 1)))
            continue;
        if (c == 's') {
            if (word_lit_at(t, i, "setget"))
                bits |= F_SETGET; /* setget\b */
            else if (lit_at(t, i, "super")) {
                Py_UCS4 d = at(t, skip_blank(t, i + 5));
                if (d == '.' || d == '(')
                    bits |= F_SUPER; /* super[ \t]*[.(] */
            }
        }
        else if (c == 'y' && lit_at(t, i, "yield") && at(t, skip_blank(t, i + 5)) == '(')
            bits |= F_YIELD; /* yield[ \t]*\( */
        else if (c == 'a' && word_lit_at(t, i, "await"))
            bits |= F_AWAIT; /* await\b */
        else if (c == 'A' && lit_at(t, i, "Array") && at(t, skip_blank(t, i + 5)) == '[')
            bits |= F_TYPED_ARRAY; /* Array[ \t]*\[ */
    }
    return bits;
}


/* ---- chunk_facts: scan_rows plus the rest of facts._facts / FileFacts._chunk, one call per file -- */

/* Searches over the comment-free text `nc` (strings kept) of one chunk: nc[s:e] is
 * "\n".join(no_comments.split("\n")[a:b]), so every pattern sees exactly the chunk's code and
 * treats s as the start of the text and e as its end (`\b`, look-behind, `code[i]` with i < 0). */

static PyObject *LIT_GET_NODE, *LIT_CONNECT; /* "get_node", "connect": made at import */

static inline int is_space(Py_UCS4 c) { return Py_UNICODE_ISSPACE(c); } /* `\s` of a str pattern */

static inline Py_ssize_t skip_space(const Text *t, Py_ssize_t i, Py_ssize_t e)
{
    while (i < e && is_space(PyUnicode_READ(t->kind, t->data, i)))
        i++;
    return i;
}

static int lit_in(const Text *t, Py_ssize_t i, Py_ssize_t e, const char *lit)
{
    for (; *lit; lit++, i++)
        if (i >= e || PyUnicode_READ(t->kind, t->data, i) != (Py_UCS4)(unsigned char)*lit)
            return 0;
    return 1;
}

static inline int is_path_char(Py_UCS4 c) /* [A-Za-z0-9_/%] */
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' ||
           c == '%';
}

/* _NODE_PATH's alternatives at j: "[^"\n]*" | '[^'\n]*' | [A-Za-z0-9_/%]+ ; end or -1 */
static Py_ssize_t node_path_tail(const Text *t, Py_ssize_t j, Py_ssize_t e)
{
    if (j >= e)
        return -1;
    Py_UCS4 c = PyUnicode_READ(t->kind, t->data, j);
    if (c == '"' || c == '\'') {
        for (Py_ssize_t k = j + 1; k < e; k++) {
            Py_UCS4 d = PyUnicode_READ(t->kind, t->data, k);
            if (d == c)
                return k + 1;
            if (d == '\n')
                return -1;
        }
        return -1;
    }
    if (!is_path_char(c))
        return -1;
    while (j < e && is_path_char(PyUnicode_READ(t->kind, t->data, j)))
        j++;
    return j;
}

/* Append text[s:e] to list unless seen has it (dict.fromkeys-style de-duplication). */
static int add_span_unique(PyObject *list, PyObject **seen, PyObject *text, Py_ssize_t s, Py_ssize_t e)
{
    return append_unique(list, seen, PyUnicode_Substring(text, s, e));
}

static inline int in_str(Py_UCS4 c, const char *set)
{
    for (; *set; set++)
        if (c == (Py_UCS4)(unsigned char)*set)
            return 1;
    return 0;
}

/* facts.node_paths(nc[s:e]): `$` paths, then `%Unique` nodes, then get_node("...") strings,
 * de-duplicated in that order. */
static int node_paths_span(const Text *t, PyObject *text, Py_ssize_t s, Py_ssize_t e, PyObject *paths, PyObject **seen)
{
    int kind = t->kind;
    const void *data = t->data;
    /* _NODE_PATH = \$%?(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9_/%]+) */
    for (Py_ssize_t i = s; i < e;) {
        if ((i = PyUnicode_FindChar(text, '$', i, e, 1)) < 0)
            break;
        Py_ssize_t end = -1;
        if (i + 1 < e && PyUnicode_READ(kind, data, i + 1) == '%')
            end = node_path_tail(t, i + 2, e);
        if (end < 0) /* `%?` backtracks to empty */
            end = node_path_tail(t, i + 1, e);
        if (end < 0) {
            i++;
            continue;
        }
        if (add_span_unique(paths, seen, text, i, end) < 0)
            return -1;
        i = end;
    }
    /* _Unique.finditer: %[A-Za-z_]\w* not after an operand */
    for (Py_ssize_t i = s; i < e;) {
        if ((i = PyUnicode_FindChar(text, '%', i, e, 1)) < 0)
            break;
        if (i + 1 >= e || !is_name_start(PyUnicode_READ(kind, data, i + 1))) {
            i++;
            continue;
        }
        Py_ssize_t end = i + 2;
        while (end < e && is_word(PyUnicode_READ(kind, data, end)))
            end++;
        Py_ssize_t k = i - 1;
        int ok = 1;
        if (k >= s && !in_str(PyUnicode_READ(kind, data, k), " \t\n(,[=:{"))
            ok = 0; /* `a%b` or `"..."%x` */
        if (ok) {
            while (k >= s && in_str(PyUnicode_READ(kind, data, k), " \t"))
                k--;
            ok = k < s || in_str(PyUnicode_READ(kind, data, k), "\n(,[=:{") ||
                 (k - 5 >= s && lit_in(t, k - 5, k + 1, "return")) || (k - 4 >= s && lit_in(t, k - 4, k + 1, "await"));
        }
        if (ok && add_span_unique(paths, seen, text, i, end) < 0)
            return -1;
        i = end;
    }
    /* _GET_NODE_STR = get_node(?:_or_null)?\s*\(\s*["']([^"'\n]+)["'] , group 1 */
    for (Py_ssize_t i = s; i + 8 <= e;) {
        if ((i = PyUnicode_Find(text, LIT_GET_NODE, i, e, 1)) < 0)
            break;
        Py_ssize_t j = i + 8, gs = -1, ge = -1;
        for (int with_suffix = 1; with_suffix >= 0 && gs < 0; with_suffix--) {
            Py_ssize_t k = j;
            if (with_suffix) {
                if (!lit_in(t, k, e, "_or_null"))
                    continue;
                k += 8;
            }
            k = skip_space(t, k, e);
            if (k >= e || PyUnicode_READ(kind, data, k) != '(')
                continue;
            k = skip_space(t, k + 1, e);
            if (k >= e || !in_str(PyUnicode_READ(kind, data, k), "\"'"))
                continue;
            Py_ssize_t r = k + 1;
            while (r < e && !in_str(PyUnicode_READ(kind, data, r), "\"'\n"))
                r++;
            if (r == k + 1 || r >= e || PyUnicode_READ(kind, data, r) == '\n')
                continue;
            gs = k + 1;
            ge = r;
        }
        if (gs < 0) {
            i++;
            continue;
        }
        if (add_span_unique(paths, seen, text, gs, ge) < 0)
            return -1;
        i = ge + 1;
    }
    return 0;
}

/* _RES_REF.findall(nc[s:e]): \b(?:res|user|uid)://[^\s"')\]]* */
static int res_refs_span(const Text *t, PyObject *text, Py_ssize_t s, Py_ssize_t e, PyObject *refs, PyObject **seen)
{
    for (Py_ssize_t i = s; i < e;) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        Py_ssize_t p = 0;
        if ((c == 'r' || c == 'u') && (i == s || !is_word(PyUnicode_READ(t->kind, t->data, i - 1)))) {
            if (lit_in(t, i, e, "res://"))
                p = 6;
            else if (lit_in(t, i, e, "user://"))
                p = 7;
            else if (lit_in(t, i, e, "uid://"))
                p = 6;
        }
        if (!p) {
            i++;
            continue;
        }
        Py_ssize_t end = i + p;
        Py_UCS4 d;
        while (end < e && !is_space(d = PyUnicode_READ(t->kind, t->data, end)) && !in_str(d, "\"')]"))
            end++;
        if (add_span_unique(refs, seen, text, i, end) < 0)
            return -1;
        i = end;
    }
    return 0;
}

/* _CALLABLE_CONNECT.search: \.\s*connect\s*\(\s*(?!["'\s)]) */
static int callable_connect_span(const Text *t, PyObject *text, Py_ssize_t s, Py_ssize_t e)
{
    for (Py_ssize_t i = s; i < e; i++) {
        if ((i = PyUnicode_FindChar(text, '.', i, e, 1)) < 0)
            break;
        Py_ssize_t k = skip_space(t, i + 1, e);
        if (!lit_in(t, k, e, "connect"))
            continue;
        k = skip_space(t, k + 7, e);
        if (k >= e || PyUnicode_READ(t->kind, t->data, k) != '(')
            continue;
        k = skip_space(t, k + 1, e); /* backtracking the `\s*` only puts a space next: still refused */
        if (k >= e || !in_str(PyUnicode_READ(t->kind, t->data, k), "\"')"))
            return 1;
    }
    return 0;
}

/* _STRING_CONNECT.search: connect\s*\(\s*["'][^"'\n]*["']\s*,\s*[^,()\n]+,\s*["'] */
static int string_connect_span(const Text *t, PyObject *text, Py_ssize_t s, Py_ssize_t e)
{
    int kind = t->kind;
    const void *data = t->data;
    for (Py_ssize_t i = s; i + 7 <= e; i++) {
        if ((i = PyUnicode_Find(text, LIT_CONNECT, i, e, 1)) < 0)
            break;
        Py_ssize_t k = skip_space(t, i + 7, e);
        if (k >= e || PyUnicode_READ(kind, data, k) != '(')
            continue;
        k = skip_space(t, k + 1, e);
        if (k >= e || !in_str(PyUnicode_READ(kind, data, k), "\"'"))
            continue;
        k++;
        while (k < e && !in_str(PyUnicode_READ(kind, data, k), "\"'\n"))
            k++;
        if (k >= e || PyUnicode_READ(kind, data, k) == '\n')
            continue;
        k = skip_space(t, k + 1, e);
        if (k >= e || PyUnicode_READ(kind, data, k) != ',')
            continue;
        Py_ssize_t p = k + 1, q;
        k = skip_space(t, p, e);
        if (k < e && !in_str(PyUnicode_READ(kind, data, k), ",()\n")) {
            q = k;
            while (q < e && !in_str(PyUnicode_READ(kind, data, q), ",()\n"))
                q++;
            if (q >= e || PyUnicode_READ(kind, data, q) != ',')
                continue;
        }
        else if (k < e && PyUnicode_READ(kind, data, k) == ',' && k > p && PyUnicode_READ(kind, data, k - 1) != '\n')
            q = k; /* `\s*` gives its last blank back to `[^,()\n]+` */
        else
            continue;
        k = skip_space(t, q + 1, e);
        if (k < e && in_str(PyUnicode_READ(kind, data, k), "\"'"))
            return 1;
    }
    return 0;
}

/* dict keys, created once at import */
enum { K_SYMBOLS, K_CALLS, K_REFS, K_EXTRA, K_SYNTAX, K_DECLARED, K_IDENTIFIERS, K_LAMBDA, K_RPC, K_ANNOTATIONS,
       K_CALLABLE_CONNECT, K_STRING_CONNECT, K_UNIQUE_NODE, N_KEYS };
static const char *KEY_NAMES[N_KEYS] = {
    "symbol_candidates", "api_call_candidates", "reference_candidates", "extra", "syntax", "declared_names",
    "identifiers", "lambda", "rpc_keyword", "annotations", "callable_connect", "string_connect", "unique_node",
};
static PyObject *KEYS[N_KEYS];
static PyObject *FLAG_KEYS[N_FLAGS];
/* facts._facts' syntax dict before any value is known: the flags, then lambda, rpc_keyword,
 * annotations, callable_connect, string_connect, unique_node (False / None), in that order */
static PyObject *SYNTAX_TEMPLATE;

/* str in scan.KEYWORDS */
static int str_is_keyword(PyObject *u)
{
    return (keyword_flags(PyUnicode_KIND(u), PyUnicode_DATA(u), 0, PyUnicode_GET_LENGTH(u)) & KW) != 0;
}

/* The leaf of a node path as facts._facts takes it, when it names a type: the part after the
 * last of / % $ " ' once those are stripped from both ends, if it is [A-Z]\w* ; else NULL with
 * no error set (*err = 1 on error). */
static PyObject *path_type_leaf(PyObject *p, int *err)
{
    int kind = PyUnicode_KIND(p);
    const void *data = PyUnicode_DATA(p);
    Py_ssize_t a = 0, b = PyUnicode_GET_LENGTH(p);
    while (a < b && in_str(PyUnicode_READ(kind, data, a), "$%\"'"))
        a++;
    while (b > a && in_str(PyUnicode_READ(kind, data, b - 1), "$%\"'"))
        b--;
    Py_ssize_t ls = a;
    for (Py_ssize_t i = a; i < b; i++)
        if (in_str(PyUnicode_READ(kind, data, i), "/%$\"'"))
            ls = i + 1;
    if (ls >= b)
        return NULL;
    Py_UCS4 c0 = PyUnicode_READ(kind, data, ls);
    if (!(c0 >= 'A' && c0 <= 'Z'))
        return NULL;
    for (Py_ssize_t i = ls + 1; i < b; i++)
        if (!is_word(PyUnicode_READ(kind, data, i)))
            return NULL;
    PyObject *r = PyUnicode_Substring(p, ls, b);
    if (r == NULL)
        *err = 1;
    return r;
}

/* FileFacts._chunk for nc[s:e], given scan_facts' tuple of the masked rows and the row cues */
static PyObject *build_facts(const Text *nct, PyObject *nc, Py_ssize_t s, Py_ssize_t e, int has_ref,
                             PyObject *scanned, int flags, PyObject *rpc, PyObject *annotations)
{
    PyObject *identifiers = PyTuple_GET_ITEM(scanned, 0), *declared = PyTuple_GET_ITEM(scanned, 1);
    PyObject *calls = PyTuple_GET_ITEM(scanned, 2), *has_lambda = PyTuple_GET_ITEM(scanned, 3);
    long cues = PyLong_AsLong(PyTuple_GET_ITEM(scanned, 5));
    int has_path = (cues & CUE_PATH) != 0, has_connect = (cues & CUE_CONNECT) != 0, err = 0;
    PyObject *paths = PyList_New(0), *pseen = NULL, *symbols = NULL, *refs = NULL, *rseen = NULL;
    PyObject *syntax = NULL, *extra = NULL, *facts = NULL;
    if (paths == NULL)
        goto done;
    if (has_path && node_paths_span(nct, nc, s, e, paths, &pseen) < 0)
        goto done;
    Py_ssize_t n_paths = PyList_GET_SIZE(paths);

    /* symbols: the scan's capitalised identifiers, then path leaves naming a type; de-duplicated,
     * minus declared names and keywords */
    symbols = PyTuple_GET_ITEM(scanned, 4); /* scan_span's own new list: extended in place */
    Py_INCREF(symbols);
    for (Py_ssize_t i = 0; i < n_paths; i++) {
        PyObject *leaf = path_type_leaf(PyList_GET_ITEM(paths, i), &err);
        if (err)
            goto done;
        if (leaf != NULL) {
            int r = PyList_Append(symbols, leaf);
            Py_DECREF(leaf);
            if (r < 0)
                goto done;
        }
    }
    if (PyList_GET_SIZE(symbols)) {
        PyObject *kept = PyList_New(0), *sseen = PySet_New(declared);
        if (kept == NULL || sseen == NULL) {
            Py_XDECREF(kept);
            Py_XDECREF(sseen);
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(symbols); i++) {
            PyObject *sym = PyList_GET_ITEM(symbols, i);
            if (str_is_keyword(sym))
                continue;
            Py_INCREF(sym);
            if (append_unique(kept, &sseen, sym) < 0) {
                Py_DECREF(kept);
                Py_DECREF(sseen);
                goto done;
            }
        }
        Py_DECREF(sseen);
        Py_SETREF(symbols, kept);
    }

    /* references: res:// user:// uid:// refs, then the node paths, de-duplicated */
    refs = PyList_New(0);
    if (refs == NULL)
        goto done;
    if (has_ref && res_refs_span(nct, nc, s, e, refs, &rseen) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n_paths; i++) {
        PyObject *p = PyList_GET_ITEM(paths, i);
        Py_INCREF(p);
        if (append_unique(refs, &rseen, p) < 0)
            goto done;
    }

    int unique_node = 0;
    for (Py_ssize_t i = 0; i < n_paths && !unique_node; i++) {
        PyObject *p = PyList_GET_ITEM(paths, i);
        Py_UCS4 c0 = PyUnicode_READ_CHAR(p, 0);
        unique_node = c0 == '%' || (c0 == '$' && PyUnicode_GET_LENGTH(p) > 1 && PyUnicode_READ_CHAR(p, 1) == '%');
    }
    int callable = has_connect && callable_connect_span(nct, nc, s, e);
    int string = has_connect && string_connect_span(nct, nc, s, e);

    syntax = PyDict_Copy(SYNTAX_TEMPLATE); /* every key in order, no resizing: then values replaced */
    if (syntax == NULL)
        goto done;
    for (int f = 0; f < N_FLAGS; f++)
        if ((flags >> f) & 1 && PyDict_SetItem(syntax, FLAG_KEYS[f], Py_True) < 0)
            goto done;
    if ((has_lambda != Py_False && PyDict_SetItem(syntax, KEYS[K_LAMBDA], has_lambda) < 0) ||
        (rpc != Py_None && PyDict_SetItem(syntax, KEYS[K_RPC], rpc) < 0) ||
        PyDict_SetItem(syntax, KEYS[K_ANNOTATIONS], annotations) < 0 ||
        (callable && PyDict_SetItem(syntax, KEYS[K_CALLABLE_CONNECT], Py_True) < 0) ||
        (string && PyDict_SetItem(syntax, KEYS[K_STRING_CONNECT], Py_True) < 0) ||
        (unique_node && PyDict_SetItem(syntax, KEYS[K_UNIQUE_NODE], Py_True) < 0))
        goto done;
    extra = PyDict_New();
    if (extra == NULL || PyDict_SetItem(extra, KEYS[K_SYNTAX], syntax) < 0 ||
        PyDict_SetItem(extra, KEYS[K_DECLARED], declared) < 0 ||
        PyDict_SetItem(extra, KEYS[K_IDENTIFIERS], identifiers) < 0)
        goto done;
    facts = PyDict_New();
    if (facts == NULL || PyDict_SetItem(facts, KEYS[K_SYMBOLS], symbols) < 0 ||
        PyDict_SetItem(facts, KEYS[K_CALLS], calls) < 0 || PyDict_SetItem(facts, KEYS[K_REFS], refs) < 0 ||
        PyDict_SetItem(facts, KEYS[K_EXTRA], extra) < 0) {
        Py_CLEAR(facts);
        goto done;
    }
    /* Nothing the chunk keeps from here can be part of a reference cycle: the lists hold only
     * strs and the dicts only those lists, strs, bools and None. Untrack them, as CPython
     * untracks tuples and dicts of atomic values itself, so no collection walks them again (the
     * first one after chunk_project's GC pause walked ~8 of them per chunk). A dict that later
     * gets a container value is tracked again by CPython (extra["leading_annotations"] = ...). */
    PyObject_GC_UnTrack(symbols);
    PyObject_GC_UnTrack(calls);
    PyObject_GC_UnTrack(refs);
    PyObject_GC_UnTrack(declared);
    PyObject_GC_UnTrack(identifiers);
    PyObject_GC_UnTrack(annotations);
    PyObject_GC_UnTrack(syntax);
    PyObject_GC_UnTrack(extra);
done:
    Py_XDECREF(paths);
    Py_XDECREF(pseen);
    Py_XDECREF(symbols);
    Py_XDECREF(refs);
    Py_XDECREF(rseen);
    Py_XDECREF(syntax);
    Py_XDECREF(extra);
    return facts;
}

/* ---- scan_rows: everything FileFacts needs per chunk, one call per file --------------------- */

typedef struct {
    Py_ssize_t row;
    PyObject *name; /* "@name" */
} Annotation;

/* text[i:e].find(ch) as an index, or -1 (memchr for 1-byte text) */
ALWAYS_INLINE Py_ssize_t find_char(const Text *t, Py_UCS4 ch, Py_ssize_t i, Py_ssize_t e)
{
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const char *d = (const char *)t->data;
        const char *f = i < e ? memchr(d + i, (int)ch, (size_t)(e - i)) : NULL;
        return f ? f - d : -1;
    }
    for (; i < e; i++)
        if (PyUnicode_READ(t->kind, t->data, i) == ch)
            return i;
    return -1;
}

/* Each row's cue bits and rpc keyword, and the annotations in row order (the per-file pass of
 * scan_rows / chunk_facts); -1 on error. */
ALWAYS_INLINE int file_cues_body(const Text *t, PyObject *masked, const Py_ssize_t *starts, Py_ssize_t nlines,
                                 int *bits, signed char *rpc, Annotation **ann, Py_ssize_t *n_ann, Py_ssize_t *cap_ann)
{
    for (Py_ssize_t r = 0; r < nlines; r++) {
        int w;
        bits[r] = row_cues(t, starts[r], starts[r + 1] - 1, &w);
        rpc[r] = (signed char)w;
        /* @(?<!\w@)([A-Za-z_]\w*) */
        for (Py_ssize_t i = starts[r]; (i = find_char(t, '@', i, starts[r + 1] - 1)) >= 0; i++) {
            if ((i > 0 && word_at(t, i - 1)) ||
                !(i + 1 < t->n && is_name_start(PyUnicode_READ(t->kind, t->data, i + 1))))
                continue;
            Py_ssize_t e = i + 2;
            while (word_at(t, e))
                e++;
            if ((*n_ann) == (*cap_ann)) {
                Py_ssize_t cap = (*cap_ann) ? (*cap_ann) * 2 : 16;
                Annotation *grown = PyMem_Resize(*ann, Annotation, (size_t)cap);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                *ann = grown;
                (*cap_ann) = cap;
            }
            (*ann)[(*n_ann)].row = r;
            (*ann)[(*n_ann)].name = PyUnicode_Substring(masked, i, e);
            if ((*ann)[(*n_ann)].name == NULL)
                return -1;
            (*n_ann)++;
            i = e - 1;
        }
    }
    return 0;
}

static int file_cues(const Text *t, PyObject *masked, const Py_ssize_t *starts, Py_ssize_t nlines, int *bits,
                     signed char *rpc, Annotation **ann, Py_ssize_t *n_ann, Py_ssize_t *cap_ann)
{
    if (t->kind == PyUnicode_1BYTE_KIND) { /* the usual case: the same code, with byte loads */
        Text t1 = {PyUnicode_1BYTE_KIND, t->data, t->n};
        return file_cues_body(&t1, masked, starts, nlines, bits, rpc, ann, n_ann, cap_ann);
    }
    return file_cues_body(t, masked, starts, nlines, bits, rpc, ann, n_ann, cap_ann);
}

/* scan_rows (nc == NULL) or chunk_facts (nc: the comment-free text, same rows as masked) */
static PyObject *rows_impl(PyObject *masked, PyObject *nc, PyObject *ranges)
{
    if (PyUnicode_READY(masked) < 0 || (nc != NULL && PyUnicode_READY(nc) < 0))
        return NULL;
    PyObject *seq = PySequence_Tuple(ranges); /* a private copy: parsing an item cannot resize it */
    if (seq == NULL)
        return NULL;
    Text t = {PyUnicode_KIND(masked), PyUnicode_DATA(masked), PyUnicode_GET_LENGTH(masked)};
    Py_ssize_t n = t.n, nlines = 1, n_ann = 0, cap_ann = 0;
    Py_ssize_t *starts = NULL, *nc_starts = NULL;
    char *ref_row = NULL; /* row of nc holds "://" */
    Text nct = {0, NULL, 0};
    int *bits = NULL;
    signed char *rpc = NULL;
    Annotation *ann = NULL;
    PyObject *out = NULL, *rpc_names[N_RPC] = {NULL}, *seen = NULL;
    Names names = {NULL, 0, 0, NULL, 0, NULL};

    /* starts[r] = offset of row r of `masked.split("\n")`; starts[nlines] = n + 1 (one past a
     * virtual final "\n"), so rows [a, b) are masked[starts[a] : starts[b] - 1] */
    for (Py_ssize_t i = 0; (i = find_char(&t, '\n', i, n)) >= 0; i++)
        nlines++;
    starts = PyMem_New(Py_ssize_t, (size_t)nlines + 1);
    bits = PyMem_New(int, (size_t)nlines);
    rpc = PyMem_New(signed char, (size_t)nlines);
    if (starts == NULL || bits == NULL || rpc == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    starts[0] = 0;
    for (Py_ssize_t i = 0, r = 1; (i = find_char(&t, '\n', i, n)) >= 0; i++)
        starts[r++] = i + 1;
    starts[nlines] = n + 1;
    if (nc != NULL) { /* the same row bookkeeping for nc, and which of its rows hold "://" */
        nct = (Text){PyUnicode_KIND(nc), PyUnicode_DATA(nc), PyUnicode_GET_LENGTH(nc)};
        nc_starts = PyMem_New(Py_ssize_t, (size_t)nlines + 1);
        ref_row = PyMem_Calloc((size_t)nlines, 1);
        if (nc_starts == NULL || ref_row == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        nc_starts[0] = 0;
        Py_ssize_t r = 1;
        int too_many = 0;
        for (Py_ssize_t i = 0; i <= nct.n && !too_many;) {
            Py_ssize_t nl = find_char(&nct, '\n', i, nct.n), row_end = nl < 0 ? nct.n : nl;
            for (Py_ssize_t c = i; (c = find_char(&nct, ':', c, row_end)) >= 0; c++)
                if (lit_at(&nct, c, "://")) {
                    ref_row[r - 1] = 1;
                    break;
                }
            if (nl < 0)
                break;
            if (r == nlines)
                too_many = 1;
            else
                nc_starts[r++] = nl + 1;
            i = nl + 1;
        }
        if (too_many || r != nlines) {
            PyErr_SetString(PyExc_ValueError, "chunk_facts() texts must have the same number of lines");
            goto done;
        }
        nc_starts[nlines] = nct.n + 1;
    }
    if (file_cues(&t, masked, starts, nlines, bits, rpc, &ann, &n_ann, &cap_ann) < 0)
        goto done;
    for (int w = 0; w < N_RPC; w++)
        if ((rpc_names[w] = PyUnicode_InternFromString(RPC_WORDS[w])) == NULL)
            goto done;
    if (names_init(&names, masked) < 0)
        goto done;

    Py_ssize_t count = PyTuple_GET_SIZE(seq);
    out = PyList_New(count);
    if (out == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t a, b;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(seq, k), "nn;scan_rows() range must be (start, end)", &a, &b))
            goto fail;
        if (a < 0 || b < 0) {
            PyErr_SetString(PyExc_ValueError, "scan_rows() rows must be >= 0");
            goto fail;
        }
        if (b > nlines) /* as list slicing clamps */
            b = nlines;
        if (a > b)
            a = b;
        /* an empty range scans nothing, like "\n".join([]) */
        PyObject *scanned = scan_span(&names, a < b ? starts[a] : 0, a < b ? starts[b] - 1 : 0, k + 1, 1);
        if (scanned == NULL)
            goto fail;
        int flags = 0, w = -1;
        for (Py_ssize_t r = a; r < b; r++) {
            flags |= bits[r];
            if (w < 0)
                w = rpc[r];
        }
        /* annotations on rows [a, b): sorted({...}); ann is in row order, so binary search */
        Py_ssize_t lo = 0, hi = n_ann;
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (ann[mid].row < a)
                lo = mid + 1;
            else
                hi = mid;
        }
        PyObject *annotations = NULL;
        if (lo >= n_ann || ann[lo].row >= b) { /* none on these rows: no set to sort */
            if ((annotations = PyList_New(0)) == NULL)
                goto fail;
        }
        else
            seen = PySet_New(NULL);
        for (Py_ssize_t q = lo; seen != NULL && q < n_ann && ann[q].row < b; q++)
            if (PySet_Add(seen, ann[q].name) < 0)
                Py_CLEAR(seen);
        if (annotations == NULL && seen != NULL && (annotations = PySequence_List(seen)) != NULL &&
            PyList_Sort(annotations) < 0)
            Py_CLEAR(annotations);
        Py_CLEAR(seen);
        PyObject *item = NULL;
        if (annotations != NULL && nc != NULL) {
            int has_ref = 0;
            for (Py_ssize_t r = a; r < b && !has_ref; r++)
                has_ref = ref_row[r];
            item = build_facts(&nct, nc, a < b ? nc_starts[a] : 0, a < b ? nc_starts[b] - 1 : 0, has_ref, scanned,
                               flags, w >= 0 ? rpc_names[w] : Py_None, annotations);
        }
        else if (annotations != NULL) {
            PyObject *tail = Py_BuildValue("(iOO)", flags, w >= 0 ? rpc_names[w] : Py_None, annotations);
            item = tail ? PySequence_Concat(scanned, tail) : NULL;
            Py_XDECREF(tail);
        }
        Py_DECREF(scanned);
        Py_XDECREF(annotations);
        if (item == NULL)
            goto fail;
        PyList_SET_ITEM(out, k, item);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    for (Py_ssize_t q = 0; q < n_ann; q++)
        Py_DECREF(ann[q].name);
    for (int w = 0; w < N_RPC; w++)
        Py_XDECREF(rpc_names[w]);
    names_free(&names);
    PyMem_Free(ann);
    PyMem_Free(starts);
    PyMem_Free(nc_starts);
    PyMem_Free(ref_row);
    PyMem_Free(bits);
    PyMem_Free(rpc);
    Py_DECREF(seq);
    return out;
}

static PyObject *sp_scan_rows(PyObject *self, PyObject *args)
{
    PyObject *masked, *ranges;
    if (!PyArg_ParseTuple(args, "UO:scan_rows", &masked, &ranges))
        return NULL;
    return rows_impl(masked, NULL, ranges);
}

static PyObject *sp_chunk_facts(PyObject *self, PyObject *args)
{
    PyObject *masked, *nc, *ranges;
    if (!PyArg_ParseTuple(args, "UUO:chunk_facts", &masked, &nc, &ranges))
        return NULL;
    return rows_impl(masked, nc, ranges);
}

/* untracked_copies(template, n): n copies of a set of strs, untracked by the GC (a set of strs can
 * be part of no cycle; a set holding anything else is copied tracked, as set.copy() would). */
static PyObject *sp_untracked_copies(PyObject *self, PyObject *args)
{
    PyObject *tmpl, *key;
    Py_ssize_t n, pos = 0;
    Py_hash_t hash;
    if (!PyArg_ParseTuple(args, "O!n:untracked_copies", &PySet_Type, &tmpl, &n))
        return NULL;
    int atomic = 1;
    while (atomic && _PySet_NextEntry(tmpl, &pos, &key, &hash))
        atomic = PyUnicode_CheckExact(key);
    PyObject *out = PyList_New(n > 0 ? n : 0);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *c = PySet_New(tmpl); /* what set.copy() builds: same table, same order */
        if (c == NULL) {
            Py_CLEAR(out);
            break;
        }
        if (atomic)
            PyObject_GC_UnTrack(c);
        PyList_SET_ITEM(out, i, c);
    }
    return out;
}

/* has_recover_cues(src: bytes) -> `b"sync" in src or b"$%" in src` (glibc memmem: no per-byte loop) */
/* Whether `before + anchor + after` occurs in data[:n] (before: 0 or 1 byte). Scans with memchr
 * for the anchor, a byte rarer in code than the needle's first ('y' of "sync": ~1.7% of the
 * bench corpus' bytes, '$' ~0.2%), and checks the neighbours at each hit: several times faster
 * than memmem, whose short-needle search runs at ~1.3 GB/s here. */
static int has_pair_at(const char *data, size_t n, char anchor, const char *before, const char *after)
{
    size_t nb = strlen(before), na = strlen(after);
    const char *p = data + nb, *end = data + n;
    if (n < nb + 1 + na)
        return 0;
    while (p + na < end && (p = memchr(p, anchor, (size_t)(end - na - p))) != NULL) {
        if (memcmp(p - nb, before, nb) == 0 && memcmp(p + 1, after, na) == 0)
            return 1;
        p++;
    }
    return 0;
}

static PyObject *sp_has_recover_cues(PyObject *self, PyObject *src)
{
    if (!PyBytes_Check(src)) {
        PyErr_SetString(PyExc_TypeError, "has_recover_cues: bytes expected");
        return NULL;
    }
    const char *data = PyBytes_AS_STRING(src);
    size_t n = (size_t)PyBytes_GET_SIZE(src);
    return PyBool_FromLong(has_pair_at(data, n, '$', "", "%") || has_pair_at(data, n, 'y', "s", "nc"));
}

/* UTF-8 size of text[s:e]; -1 when it holds a surrogate (str.encode("utf-8") would raise). */
static Py_ssize_t utf8_size(int kind, const void *data, Py_ssize_t s, Py_ssize_t e)
{
    Py_ssize_t n = e - s;
    for (Py_ssize_t i = s; i < e; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80)
            continue;
        if (c < 0x800)
            n += 1;
        else if (c >= 0xD800 && c <= 0xDFFF)
            return -1;
        else
            n += c < 0x10000 ? 2 : 3;
    }
    return n;
}

/* code_spans(text, [(start, last), ...]) -> [(code, start_byte, end_byte), ...] as
 * gdscript._code_spans for a text without "\r" (rows split on "\n"; ranges ascending, disjoint,
 * within the rows); None when the text has a CR or a surrogate (the Python path then runs). */
static PyObject *sp_code_spans(PyObject *self, PyObject *args)
{
    PyObject *text, *ranges;
    if (!PyArg_ParseTuple(args, "UO!:code_spans", &text, &PyList_Type, &ranges))
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    int ascii = PyUnicode_IS_ASCII(text);
    if (PyUnicode_FindChar(text, '\r', 0, len, 1) != -1)
        Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(ranges);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    Py_ssize_t row = 0, cpos = 0, bpos = 0; /* row `row` starts at character cpos, byte bpos */
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *r = PyList_GET_ITEM(ranges, k);
        Py_ssize_t start, last;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
            PyErr_SetString(PyExc_TypeError, "code_spans: ranges must be (start, last) tuples");
            goto fail;
        }
        start = PyLong_AsSsize_t(PyTuple_GET_ITEM(r, 0));
        last = PyLong_AsSsize_t(PyTuple_GET_ITEM(r, 1));
        if ((start == -1 || last == -1) && PyErr_Occurred())
            goto fail;
        if (start < row || last <= start) {
            PyErr_SetString(PyExc_ValueError, "code_spans: ranges must ascend without overlap");
            goto fail;
        }
        Py_ssize_t c = cpos;
        for (; row < start; row++) { /* skip to the start row */
            c = PyUnicode_FindChar(text, '\n', c, len, 1);
            if (c < 0)
                goto out_of_rows;
            c++;
        }
        Py_ssize_t gap_bytes = ascii ? c - cpos : utf8_size(kind, data, cpos, c);
        if (gap_bytes < 0)
            goto surrogate;
        bpos += gap_bytes;
        cpos = c;
        Py_ssize_t e = cpos; /* becomes the end of row last - 1 (its "\n", or the text's end) */
        for (Py_ssize_t rr = start; rr < last; rr++) {
            Py_ssize_t nl = PyUnicode_FindChar(text, '\n', e, len, 1);
            if (rr < last - 1) {
                if (nl < 0)
                    goto out_of_rows;
                e = nl + 1;
            }
            else
                e = nl < 0 ? len : nl;
        }
        Py_ssize_t code_bytes = ascii ? e - cpos : utf8_size(kind, data, cpos, e);
        if (code_bytes < 0)
            goto surrogate;
        PyObject *code = PyUnicode_Substring(text, cpos, e);
        PyObject *t = code ? Py_BuildValue("(Nnn)", code, bpos, bpos + code_bytes) : NULL;
        if (t == NULL)
            goto fail;
        PyList_SET_ITEM(out, k, t);
        bpos += code_bytes + 1;
        cpos = e + 1;
        row = last;
    }
    return out;
out_of_rows:
    PyErr_SetString(PyExc_ValueError, "code_spans: a range goes past the text's rows");
    goto fail;
surrogate:
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ---- tree copies for the parse cache ----------------------------------------------------------- */

#define TREE_MAX_DEPTH 64

static inline int tree_atomic(PyObject *o)
{
    return PyUnicode_CheckExact(o) || o == Py_None || PyBool_Check(o) || PyLong_CheckExact(o) ||
           PyFloat_CheckExact(o) || PyBytes_CheckExact(o);
}

/* A new reference to a copy of `o` (exact dicts and lists copied, immutable leaves shared), or NULL
 * with TypeError for anything else or nesting deeper than TREE_MAX_DEPTH. `frozen`: no container
 * of the copy is tracked by the GC (it can be in no cycle: a tree of fresh containers that nobody
 * else sees); else a container is untracked only when it holds no container, as CPython does for
 * dicts and chunk_facts does for its lists. */
static PyObject *tree_copy(PyObject *o, int depth, int frozen)
{
    if (tree_atomic(o))
        return Py_NewRef(o);
    if (depth >= TREE_MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "tree_copy: nested too deep");
        return NULL;
    }
    if (PyDict_CheckExact(o)) {
        PyObject *copy = PyDict_Copy(o), *key, *value;
        Py_ssize_t pos = 0;
        int atomic = 1;
        if (copy == NULL)
            return NULL;
        while (PyDict_Next(o, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key)) {
                PyErr_SetString(PyExc_TypeError, "tree_copy: dict keys must be strs");
                goto dict_fail;
            }
            if (tree_atomic(value))
                continue;
            atomic = 0;
            PyObject *v = tree_copy(value, depth + 1, frozen);
            if (v == NULL)
                goto dict_fail;
            int r = PyDict_SetItem(copy, key, v);
            Py_DECREF(v);
            if (r < 0)
                goto dict_fail;
        }
        if ((frozen || atomic) && PyObject_GC_IsTracked(copy))
            PyObject_GC_UnTrack(copy);
        return copy;
    dict_fail:
        Py_DECREF(copy);
        return NULL;
    }
    if (PyList_CheckExact(o)) {
        Py_ssize_t n = PyList_GET_SIZE(o);
        PyObject *copy = PyList_New(n);
        int atomic = 1;
        if (copy == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PyList_GET_ITEM(o, i), *v;
            if (tree_atomic(item))
                v = Py_NewRef(item);
            else {
                atomic = 0;
                if ((v = tree_copy(item, depth + 1, frozen)) == NULL) {
                    Py_DECREF(copy);
                    return NULL;
                }
            }
            PyList_SET_ITEM(copy, i, v);
        }
        if (frozen || atomic)
            PyObject_GC_UnTrack(copy);
        return copy;
    }
    PyErr_Format(PyExc_TypeError, "tree_copy: cannot copy %.100s", Py_TYPE(o)->tp_name);
    return NULL;
}

/* tree_copy(obj, frozen) */
static PyObject *sp_tree_copy(PyObject *self, PyObject *args)
{
    PyObject *o;
    int frozen;
    if (!PyArg_ParseTuple(args, "Op:tree_copy", &o, &frozen))
        return NULL;
    return tree_copy(o, 0, frozen);
}

/* ---- drafts: the draft loop of gdscript.chunk_gdscript ------------------------------------------
 *
 * One call per file builds every chunk draft (the dict layout of agent.parse.DRAFT_LAYOUT, keys in
 * that order) from the pieces, their row ranges, facts dicts and (code, start_byte, end_byte)
 * spans. The Python loop in gdscript._drafts_py is the reference; this does the same steps (local
 * ids with ordinals and ~k suffixes, leading annotations, the surrounding context, node_kind,
 * span, sha256 of the code's UTF-8) without an interpreter round per chunk. The recovered-keyword
 * notes are added by Python before either loop runs. Anything not of the expected type raises
 * (TypeError / KeyError / ValueError), as the Python loop would. */
enum { D_CHUNK_ID, D_ORDER, D_SOURCE_FILE, D_SOURCE_SHA, D_KIND, D_NODE_KIND, D_NAME, D_SPAN, D_CODE, D_SHA,
       D_SYMBOLS, D_CALLS, D_REFS, D_CONTEXT, D_STATUS, D_EXTRA, N_DKEYS };
static const char *DKEY_NAMES[N_DKEYS] = {
    "chunk_id", "chunk_order", "source_file", "source_sha256", "chunk_kind", "node_kind", "name", "span",
    "code_text", "sha256", "symbol_candidates", "api_call_candidates", "reference_candidates",
    "surrounding_context", "parse_status", "extra",
};
static PyObject *DKEYS[N_DKEYS];
enum { S_START_LINE, S_END_LINE, S_START_BYTE, S_END_BYTE, N_SKEYS };
static const char *SKEY_NAMES[N_SKEYS] = {"start_line", "end_line", "start_byte", "end_byte"};
static PyObject *SKEYS[N_SKEYS];
/* Piece attributes, other keys and the literals the loop joins with; created at import */
enum { A_KIND, A_NODE_KINDS, A_NAME, A_STATUS, A_NOTES, A_LEADING, A_HEXDIGEST, A_STRIP, A_EMPTY, A_NL,
       A_PLUS, A_COLON, N_ATTRS };
static const char *ATTR_NAMES[N_ATTRS] = {
    "kind", "node_kinds", "name", "status", "notes", "leading_annotations", "hexdigest", "strip", "", "\n",
    "+", ":",
};
static PyObject *ATTRS[N_ATTRS];
static PyObject *ZERO, *ONE; /* chunk_order's placeholder 0; a first sighting in `seen` */
static PyObject *DRAFT_TEMPLATE, *SPAN_TEMPLATE; /* the layouts' keys, in order, values None */
#define MAX_CONTEXT_USED 12 /* as `used[:12]` */

/* counts[key] += 1 (from 0); the new count, or -1 with an exception */
static Py_ssize_t count_up(PyObject *counts, PyObject *key)
{
    PyObject *old = PyDict_GetItemWithError(counts, key); /* borrowed */
    if (old == NULL && PyErr_Occurred())
        return -1;
    Py_ssize_t n = old == NULL ? 1 : PyLong_AsSsize_t(old) + 1;
    if (n == 0 && PyErr_Occurred())
        return -1;
    PyObject *v = PyLong_FromSsize_t(n);
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItem(counts, key, v);
    Py_DECREF(v);
    return rc < 0 ? -1 : n;
}

/* the local id: `kind:n` (ordinal kinds, or no name) else `kind:name`; `~k` on the k-th repeat */
static PyObject *local_id(PyObject *kind, PyObject *name, Py_ssize_t n, PyObject *ordinal, PyObject *seen)
{
    int ord = PySequence_Contains(ordinal, kind);
    if (ord < 0)
        return NULL;
    int named = ord ? 0 : PyObject_IsTrue(name);
    if (named < 0)
        return NULL;
    PyObject *id;
    if (named && PyUnicode_CheckExact(kind) && PyUnicode_CheckExact(name)) { /* the usual case: two concats */
        PyObject *head = PyUnicode_Concat(kind, ATTRS[A_COLON]);
        id = head != NULL ? PyUnicode_Concat(head, name) : NULL;
        Py_XDECREF(head);
    }
    else /* f-string semantics (str() of each part) for anything else */
        id = named ? PyUnicode_FromFormat("%S:%S", kind, name) : PyUnicode_FromFormat("%S:%zd", kind, n);
    if (id == NULL)
        return NULL;
    PyObject *prev = PyDict_GetItemWithError(seen, id); /* borrowed */
    if (prev == NULL) {
        if (PyErr_Occurred() || PyDict_SetItem(seen, id, ONE) < 0) {
            Py_DECREF(id);
            return NULL;
        }
        return id;
    }
    Py_ssize_t k = count_up(seen, id);
    if (k < 0) {
        Py_DECREF(id);
        return NULL;
    }
    PyObject *out = PyUnicode_FromFormat("%U~%zd", id, k);
    Py_DECREF(id);
    return out;
}

/* surrounding_context of a function / inner class / unparsed chunk: the extends text, then the
 * declaration rows of up to 12 identifiers it uses that are declared at file level and not in
 * the chunk itself, stripped; the stripped extends text when there are none */
static PyObject *used_context(PyObject *extra, PyObject *decl_text, PyObject *extends_text,
                              PyObject *extends_stripped)
{
    if (PyDict_GET_SIZE(decl_text) == 0)
        return Py_NewRef(extends_stripped);
    PyObject *ids = PyDict_GetItemWithError(extra, KEYS[K_IDENTIFIERS]); /* borrowed */
    if (ids == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, KEYS[K_IDENTIFIERS]);
        return NULL;
    }
    PyObject *used = PyList_New(0), *it = PyObject_GetIter(ids), *item, *declared = NULL, *out = NULL;
    if (used == NULL || it == NULL)
        goto done;
    while ((item = PyIter_Next(it)) != NULL) {
        int has = PyDict_Contains(decl_text, item);
        if (has > 0 && PyList_Append(used, item) < 0)
            has = -1;
        Py_DECREF(item);
        if (has < 0)
            goto done;
    }
    if (PyErr_Occurred())
        goto done;
    if (PyList_GET_SIZE(used) == 0) {
        out = Py_NewRef(extends_stripped);
        goto done;
    }
    PyObject *names = PyDict_GetItemWithError(extra, KEYS[K_DECLARED]); /* borrowed */
    if (names == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, KEYS[K_DECLARED]);
        goto done;
    }
    int any = PyObject_IsTrue(names);
    if (any < 0 || (any && (declared = PySet_New(names)) == NULL))
        goto done;
    /* [extends_text, decl_text[i] for the first 12 used i not in declared] */
    PyObject *parts = PyList_New(1);
    if (parts == NULL)
        goto done;
    PyList_SET_ITEM(parts, 0, Py_NewRef(extends_text));
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(used) && PyList_GET_SIZE(parts) <= MAX_CONTEXT_USED; i++) {
        PyObject *u = PyList_GET_ITEM(used, i);
        int own = declared != NULL ? PySet_Contains(declared, u) : 0;
        PyObject *row = own == 0 ? PyDict_GetItemWithError(decl_text, u) : NULL; /* borrowed */
        if (own < 0 || (own == 0 && (row == NULL || PyList_Append(parts, row) < 0))) {
            if (own == 0 && row == NULL && !PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, u);
            Py_DECREF(parts);
            goto done;
        }
    }
    if (PyList_GET_SIZE(parts) == 1) { /* all of them declared in the chunk */
        out = Py_NewRef(extends_stripped);
    } else {
        PyObject *joined = PyUnicode_Join(ATTRS[A_NL], parts);
        if (joined != NULL) {
            out = PyObject_CallMethodNoArgs(joined, ATTRS[A_STRIP]);
            Py_DECREF(joined);
        }
    }
    Py_DECREF(parts);
done:
    Py_XDECREF(used);
    Py_XDECREF(it);
    Py_XDECREF(declared);
    return out;
}

/* node_kinds[0] when there is one, else "+".join(dict.fromkeys(node_kinds)) */
static PyObject *node_kind(PyObject *kinds)
{
    if (PyList_CheckExact(kinds) && PyList_GET_SIZE(kinds) == 1)
        return Py_NewRef(PyList_GET_ITEM(kinds, 0));
    PyObject *uniq = PyDict_New(), *it = PyObject_GetIter(kinds), *item, *keys = NULL, *out = NULL;
    if (uniq == NULL || it == NULL)
        goto done;
    while ((item = PyIter_Next(it)) != NULL) {
        int rc = PyDict_SetDefault(uniq, item, Py_None) == NULL ? -1 : 0;
        Py_DECREF(item);
        if (rc < 0)
            goto done;
    }
    if (PyErr_Occurred() || (keys = PyDict_Keys(uniq)) == NULL)
        goto done;
    out = PyUnicode_Join(ATTRS[A_PLUS], keys);
done:
    Py_XDECREF(uniq);
    Py_XDECREF(it);
    Py_XDECREF(keys);
    return out;
}

/* sha256(code.encode()).hexdigest() with the given sha256 constructor */
static PyObject *hex_sha256(PyObject *sha256, PyObject *code)
{
    if (!PyUnicode_Check(code)) {
        PyErr_SetString(PyExc_TypeError, "drafts: code must be str");
        return NULL;
    }
    PyObject *raw = PyUnicode_AsUTF8String(code); /* strict, as str.encode(): a lone surrogate raises */
    if (raw == NULL)
        return NULL;
    PyObject *h = PyObject_CallOneArg(sha256, raw);
    Py_DECREF(raw);
    if (h == NULL)
        return NULL;
    PyObject *hex = PyObject_CallMethodNoArgs(h, ATTRS[A_HEXDIGEST]);
    Py_DECREF(h);
    return hex;
}

/* d[key] = v, stealing v (NULL v: the error is passed on) */
static int dset_steal(PyObject *d, PyObject *key, PyObject *v)
{
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    return rc;
}

/* facts[key] (borrowed), KeyError when missing */
static PyObject *fact(PyObject *facts, PyObject *key)
{
    PyObject *v = PyDict_GetItemWithError(facts, key);
    if (v == NULL && !PyErr_Occurred())
        PyErr_SetObject(PyExc_KeyError, key);
    return v;
}

static PyObject *one_draft(PyObject *p, PyObject *range, PyObject *facts, PyObject *span, PyObject *decl_text,
                           PyObject *extends_text, PyObject *extends_stripped, PyObject *ordinal,
                           PyObject *context_kinds, PyObject *no_context_kinds, PyObject *sha256,
                           PyObject *counters, PyObject *seen)
{
    PyObject *kind = NULL, *name = NULL, *node_kinds = NULL, *status = NULL, *notes = NULL, *id = NULL;
    PyObject *context = NULL, *d = NULL, *sd = NULL, *extra, *sym, *calls, *refs;
    Py_ssize_t start, n;
    int has_notes, in_ctx, in_none = 0;
    if (!PyTuple_CheckExact(range) || PyTuple_GET_SIZE(range) != 2 || !PyTuple_CheckExact(span) ||
        PyTuple_GET_SIZE(span) != 3 || !PyDict_CheckExact(facts)) {
        PyErr_SetString(PyExc_TypeError,
                        "drafts: ranges are (start, last), spans (code, start_byte, end_byte), facts dicts");
        return NULL;
    }
    start = PyLong_AsSsize_t(PyTuple_GET_ITEM(range, 0));
    if (start == -1 && PyErr_Occurred())
        return NULL;
    if ((extra = fact(facts, KEYS[K_EXTRA])) == NULL) /* borrowed */
        return NULL;
    if (!PyDict_Check(extra)) {
        PyErr_SetString(PyExc_TypeError, "drafts: extra must be a dict");
        return NULL;
    }
    Py_INCREF(extra); /* held: the attribute lookups below may run Python code */
    if ((kind = PyObject_GetAttr(p, ATTRS[A_KIND])) == NULL || (name = PyObject_GetAttr(p, ATTRS[A_NAME])) == NULL ||
        (node_kinds = PyObject_GetAttr(p, ATTRS[A_NODE_KINDS])) == NULL ||
        (status = PyObject_GetAttr(p, ATTRS[A_STATUS])) == NULL ||
        (notes = PyObject_GetAttr(p, ATTRS[A_NOTES])) == NULL)
        goto done;
    if ((n = count_up(counters, kind)) < 0 || (id = local_id(kind, name, n, ordinal, seen)) == NULL)
        goto done;
    if ((has_notes = PyObject_IsTrue(notes)) < 0 ||
        (has_notes && PyDict_SetItem(extra, ATTRS[A_LEADING], notes) < 0))
        goto done;
    if ((in_ctx = PySequence_Contains(context_kinds, kind)) > 0)
        context = used_context(extra, decl_text, extends_text, extends_stripped);
    else if (in_ctx == 0 && (in_none = PySequence_Contains(no_context_kinds, kind)) > 0)
        context = Py_NewRef(ATTRS[A_EMPTY]);
    else if (in_ctx == 0 && in_none == 0)
        context = Py_NewRef(extends_text);
    if (context == NULL)
        goto done;
    /* copies of templates holding every key (values None, so untracked): one allocation each, no
     * resizing as keys arrive; setting a key's value keeps its place, so the order is the layout's,
     * and CPython tracks the dict once a container goes in, as for a dict literal */
    if ((d = PyDict_Copy(DRAFT_TEMPLATE)) == NULL || (sd = PyDict_Copy(SPAN_TEMPLATE)) == NULL)
        goto fail;
    /* keys in DRAFT_LAYOUT order: the order model_dump follows */
    if (PyDict_SetItem(d, DKEYS[D_CHUNK_ID], id) < 0 || PyDict_SetItem(d, DKEYS[D_ORDER], ZERO) < 0 ||
        PyDict_SetItem(d, DKEYS[D_SOURCE_FILE], ATTRS[A_EMPTY]) < 0 ||
        PyDict_SetItem(d, DKEYS[D_SOURCE_SHA], ATTRS[A_EMPTY]) < 0 || PyDict_SetItem(d, DKEYS[D_KIND], kind) < 0 ||
        dset_steal(d, DKEYS[D_NODE_KIND], node_kind(node_kinds)) < 0 ||
        PyDict_SetItem(d, DKEYS[D_NAME], name) < 0 ||
        dset_steal(sd, SKEYS[S_START_LINE], PyLong_FromSsize_t(start + 1)) < 0 ||
        PyDict_SetItem(sd, SKEYS[S_END_LINE], PyTuple_GET_ITEM(range, 1)) < 0 ||
        PyDict_SetItem(sd, SKEYS[S_START_BYTE], PyTuple_GET_ITEM(span, 1)) < 0 ||
        PyDict_SetItem(sd, SKEYS[S_END_BYTE], PyTuple_GET_ITEM(span, 2)) < 0 ||
        PyDict_SetItem(d, DKEYS[D_SPAN], sd) < 0 ||
        PyDict_SetItem(d, DKEYS[D_CODE], PyTuple_GET_ITEM(span, 0)) < 0 ||
        dset_steal(d, DKEYS[D_SHA], hex_sha256(sha256, PyTuple_GET_ITEM(span, 0))) < 0 ||
        (sym = fact(facts, KEYS[K_SYMBOLS])) == NULL || PyDict_SetItem(d, DKEYS[D_SYMBOLS], sym) < 0 ||
        (calls = fact(facts, KEYS[K_CALLS])) == NULL || PyDict_SetItem(d, DKEYS[D_CALLS], calls) < 0 ||
        (refs = fact(facts, KEYS[K_REFS])) == NULL || PyDict_SetItem(d, DKEYS[D_REFS], refs) < 0 ||
        PyDict_SetItem(d, DKEYS[D_CONTEXT], context) < 0 || PyDict_SetItem(d, DKEYS[D_STATUS], status) < 0 ||
        PyDict_SetItem(d, DKEYS[D_EXTRA], extra) < 0)
        goto fail;
    goto done;
fail:
    Py_CLEAR(d);
done:
    Py_XDECREF(sd);
    Py_XDECREF(context);
    Py_XDECREF(id);
    Py_XDECREF(kind);
    Py_XDECREF(name);
    Py_XDECREF(node_kinds);
    Py_XDECREF(status);
    Py_XDECREF(notes);
    Py_DECREF(extra);
    return d;
}

static PyObject *sp_drafts(PyObject *self, PyObject *args)
{
    PyObject *pieces, *ranges, *facts, *spans, *decl_text, *extends_text, *extends_stripped, *ordinal, *ctx, *no_ctx,
        *sha256;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!UUOOOO:drafts", &PyList_Type, &pieces, &PyList_Type, &ranges,
                          &PyList_Type, &facts, &PyList_Type, &spans, &PyDict_Type, &decl_text, &extends_text,
                          &extends_stripped, &ordinal, &ctx, &no_ctx, &sha256))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pieces);
    if (PyList_GET_SIZE(ranges) != n || PyList_GET_SIZE(facts) != n || PyList_GET_SIZE(spans) != n) {
        PyErr_SetString(PyExc_ValueError, "drafts: pieces, ranges, facts and spans differ in length");
        return NULL;
    }
    PyObject *counters = PyDict_New(), *seen = PyDict_New(), *out = PyList_New(n);
    for (Py_ssize_t i = 0; counters != NULL && seen != NULL && out != NULL && i < n; i++) {
        /* one_draft may run Python code (see below) that resizes a list: re-check the bound */
        if (i >= PyList_GET_SIZE(pieces) || i >= PyList_GET_SIZE(ranges) || i >= PyList_GET_SIZE(facts) ||
            i >= PyList_GET_SIZE(spans)) {
            PyErr_SetString(PyExc_RuntimeError, "drafts: a list changed size");
            Py_CLEAR(out);
            break;
        }
        /* strong references: Python code run on the way (hashes, attribute lookups, the sha256
         * constructor) could otherwise drop the lists' items from under us */
        PyObject *p = Py_NewRef(PyList_GET_ITEM(pieces, i)), *r = Py_NewRef(PyList_GET_ITEM(ranges, i));
        PyObject *f = Py_NewRef(PyList_GET_ITEM(facts, i)), *s = Py_NewRef(PyList_GET_ITEM(spans, i));
        PyObject *d = one_draft(p, r, f, s, decl_text, extends_text, extends_stripped, ordinal, ctx, no_ctx, sha256,
                                counters, seen);
        Py_DECREF(p);
        Py_DECREF(r);
        Py_DECREF(f);
        Py_DECREF(s);
        if (d == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, d);
    }
    Py_XDECREF(counters);
    Py_XDECREF(seen);
    return out;
}

/* ---- make_chunks: the model-building loop of agent.parse._chunks --------------------------------
 *
 * Each draft becomes its Chunk's __dict__ as it is (as the Python loop does, which stays the
 * reference): chunk_id gets the file's prefix, the order / source placeholders are filled, the
 * span dict becomes a Span's __dict__, and both models get their fields-set (a set.copy() of the
 * template, untracked when it holds strs only, as untracked_copies makes them) and None extra /
 * private, all set through BaseModel's own slot descriptors. The objects are made by the
 * classes' tp_new with no arguments, which is what `Span.__new__(Span)` calls. */
static PyObject *EMPTY_TUPLE;

/* desc.__set__(obj, value) */
static int descr_set(PyObject *desc, PyObject *obj, PyObject *value)
{
    descrsetfunc set = Py_TYPE(desc)->tp_descr_set;
    if (set == NULL) {
        PyErr_SetString(PyExc_TypeError, "make_chunks: a descriptor without __set__");
        return -1;
    }
    return set(desc, obj, value);
}

/* a new model object whose __dict__ is `dict`, fields-set a copy of `fields`, extra and private None */
static PyObject *new_model(PyTypeObject *cls, PyObject *dict, PyObject *fields, int untrack, PyObject *const *desc)
{
    PyObject *obj = cls->tp_new(cls, EMPTY_TUPLE, NULL);
    if (obj == NULL)
        return NULL;
    PyObject *set = PySet_New(fields); /* what set.copy() builds: same table, same order */
    if (set == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    if (untrack)
        PyObject_GC_UnTrack(set);
    int rc = descr_set(desc[0], obj, dict) < 0 || descr_set(desc[1], obj, set) < 0 ||
             descr_set(desc[2], obj, Py_None) < 0 || descr_set(desc[3], obj, Py_None) < 0;
    Py_DECREF(set);
    if (rc) {
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
}

static int strs_only(PyObject *set)
{
    PyObject *key;
    Py_ssize_t pos = 0;
    Py_hash_t hash;
    while (_PySet_NextEntry(set, &pos, &key, &hash))
        if (!PyUnicode_CheckExact(key))
            return 0;
    return 1;
}

static PyObject *sp_make_chunks(PyObject *self, PyObject *args)
{
    PyObject *drafts, *prefix, *path, *sha, *span_cls, *chunk_cls, *span_fields, *chunk_fields, *desc_tuple;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "O!UUUnO!O!O!O!O!:make_chunks", &PyList_Type, &drafts, &prefix, &path, &sha, &first,
                          &PyType_Type, &span_cls, &PyType_Type, &chunk_cls, &PySet_Type, &span_fields, &PySet_Type,
                          &chunk_fields, &PyTuple_Type, &desc_tuple))
        return NULL;
    if (PyTuple_GET_SIZE(desc_tuple) != 4) {
        PyErr_SetString(PyExc_TypeError, "make_chunks: 4 descriptors (__dict__, fields-set, extra, private)");
        return NULL;
    }
    if (((PyTypeObject *)span_cls)->tp_new == NULL || ((PyTypeObject *)chunk_cls)->tp_new == NULL) {
        PyErr_SetString(PyExc_TypeError, "make_chunks: a class without __new__");
        return NULL;
    }
    PyObject *desc[4];
    for (int i = 0; i < 4; i++)
        desc[i] = PyTuple_GET_ITEM(desc_tuple, i);
    int span_untrack = strs_only(span_fields), chunk_untrack = strs_only(chunk_fields);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(drafts); i++) { /* the list's size read each round */
        PyObject *d = Py_NewRef(PyList_GET_ITEM(drafts, i)), *id, *full = NULL, *order = NULL, *sd, *span = NULL;
        PyObject *chunk = NULL;
        int ok = 0;
        if (!PyDict_Check(d)) {
            PyErr_SetString(PyExc_TypeError, "make_chunks: drafts are dicts");
            goto next;
        }
        if ((id = PyDict_GetItemWithError(d, DKEYS[D_CHUNK_ID])) == NULL) { /* borrowed */
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, DKEYS[D_CHUNK_ID]);
            goto next;
        }
        if ((full = PyNumber_Add(prefix, id)) == NULL || PyDict_SetItem(d, DKEYS[D_CHUNK_ID], full) < 0 ||
            (order = PyLong_FromSsize_t(first + i)) == NULL || PyDict_SetItem(d, DKEYS[D_ORDER], order) < 0 ||
            PyDict_SetItem(d, DKEYS[D_SOURCE_FILE], path) < 0 || PyDict_SetItem(d, DKEYS[D_SOURCE_SHA], sha) < 0)
            goto next;
        if ((sd = PyDict_GetItemWithError(d, DKEYS[D_SPAN])) == NULL) { /* borrowed */
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, DKEYS[D_SPAN]);
            goto next;
        }
        if ((span = new_model((PyTypeObject *)span_cls, sd, span_fields, span_untrack, desc)) == NULL ||
            PyDict_SetItem(d, DKEYS[D_SPAN], span) < 0)
            goto next;
        if ((chunk = new_model((PyTypeObject *)chunk_cls, d, chunk_fields, chunk_untrack, desc)) == NULL ||
            PyList_Append(out, chunk) < 0)
            goto next;
        ok = 1;
    next:
        Py_XDECREF(full);
        Py_XDECREF(order);
        Py_XDECREF(span);
        Py_XDECREF(chunk);
        Py_DECREF(d);
        if (!ok) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyMethodDef methods[] = {
    {"mask_comments", sp_mask_comments, METH_O,
     "(comments removed, comments and string contents removed); as agent.parse.facts.mask_comments."},
    {"scan", sp_scan, METH_O, "As agent.parse.scan.scan."},
    {"code_spans", sp_code_spans, METH_VARARGS,
     "code_spans(text, [(start, last), ...]) -> [(code, start_byte, end_byte), ...] as\n"
     "gdscript._code_spans, or None for a text with a CR or a surrogate."},
    {"has_recover_cues", sp_has_recover_cues, METH_O,
     "has_recover_cues(src: bytes) -> b\"sync\" in src or b\"$%\" in src (what gdscript._recover looks for)."},
    {"tree_copy", sp_tree_copy, METH_VARARGS,
     "tree_copy(obj, frozen) -> a copy of a tree of exact dicts (str keys) and lists over immutable\n"
     "leaves (str, int, float, bool, None, bytes), leaves shared; TypeError for anything else or deeper\n"
     "than 64 levels. frozen: no container of the copy is GC-tracked; else only those holding a\n"
     "container are."},
    {"untracked_copies", sp_untracked_copies, METH_VARARGS,
     "untracked_copies(set_of_strs, n) -> [set.copy() n times], not tracked by the cyclic GC."},
    {"scan_rows", sp_scan_rows, METH_VARARGS,
     "scan_rows(masked, [(start, end), ...]) -> per row range: scan.scan_facts of its text, then\n"
     "(flag bits (FLAG_NAMES), rpc keyword or None, sorted annotations) as FileFacts finds them."},
    {"chunk_facts", sp_chunk_facts, METH_VARARGS,
     "chunk_facts(masked, no_comments, [(start, end), ...]) -> per row range: the facts dict\n"
     "FileFacts.chunk(start, end) returns (candidates and extra: syntax, declared_names, identifiers)."},
    {"drafts", sp_drafts, METH_VARARGS,
     "drafts(pieces, ranges, facts, spans, decl_text, extends_text, extends_stripped, ordinal_kinds,\n"
     "context_kinds, no_context_kinds, sha256) -> the chunk drafts of gdscript._drafts_py (same args)."},
    {"make_chunks", sp_make_chunks, METH_VARARGS,
     "make_chunks(drafts, prefix, path, sha, first_order, Span, Chunk, span_fields, chunk_fields,\n"
     "(dict, fields_set, extra, private descriptors)) -> the Chunk models agent.parse._chunks builds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups", "Optional C speedups for agent.parse (see _speedups.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* Interned strs of `names` into `out`, so the facts and draft code compare keys by pointer. */
static int intern_all(PyObject **out, const char **names, int n)
{
    for (int i = 0; i < n; i++)
        if ((out[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__speedups(void)
{
    init_keywords();
    if ((LIT_GET_NODE = PyUnicode_InternFromString("get_node")) == NULL ||
        (LIT_CONNECT = PyUnicode_InternFromString("connect")) == NULL)
        return NULL;
    if (intern_all(KEYS, KEY_NAMES, N_KEYS) < 0 || intern_all(FLAG_KEYS, FLAG_NAMES, N_FLAGS) < 0 ||
        intern_all(DKEYS, DKEY_NAMES, N_DKEYS) < 0 || intern_all(SKEYS, SKEY_NAMES, N_SKEYS) < 0 ||
        intern_all(ATTRS, ATTR_NAMES, N_ATTRS) < 0)
        return NULL;
    if ((ZERO = PyLong_FromLong(0)) == NULL || (ONE = PyLong_FromLong(1)) == NULL)
        return NULL;
    if ((EMPTY_TUPLE = PyTuple_New(0)) == NULL)
        return NULL;
    if ((DRAFT_TEMPLATE = PyDict_New()) == NULL || (SPAN_TEMPLATE = PyDict_New()) == NULL)
        return NULL;
    for (int i = 0; i < N_DKEYS; i++)
        if (PyDict_SetItem(DRAFT_TEMPLATE, DKEYS[i], Py_None) < 0)
            return NULL;
    for (int i = 0; i < N_SKEYS; i++)
        if (PyDict_SetItem(SPAN_TEMPLATE, SKEYS[i], Py_None) < 0)
            return NULL;
    if ((SYNTAX_TEMPLATE = PyDict_New()) == NULL)
        return NULL;
    for (int i = 0; i < N_FLAGS; i++)
        if (PyDict_SetItem(SYNTAX_TEMPLATE, FLAG_KEYS[i], Py_False) < 0)
            return NULL;
    if (PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_LAMBDA], Py_False) < 0 ||
        PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_RPC], Py_None) < 0 ||
        PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_ANNOTATIONS], Py_None) < 0 ||
        PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_CALLABLE_CONNECT], Py_False) < 0 ||
        PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_STRING_CONNECT], Py_False) < 0 ||
        PyDict_SetItem(SYNTAX_TEMPLATE, KEYS[K_UNIQUE_NODE], Py_False) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* the tables, so tests can check them against scan.KEYWORDS and facts._FLAGS / facts._RPC */
    PyObject *names = PyList_New(0), *flags = PyTuple_New(N_FLAGS), *rpc = PyTuple_New(N_RPC);
    for (int i = 0; names != NULL && i < N_KEYWORDS; i++) {
        PyObject *s = PyUnicode_FromString(KEYWORD_TABLE[i].name);
        if (s == NULL || PyList_Append(names, s) < 0)
            Py_CLEAR(names);
        Py_XDECREF(s);
    }
    for (int i = 0; flags != NULL && i < N_FLAGS; i++) {
        PyObject *s = PyUnicode_FromString(FLAG_NAMES[i]);
        if (s == NULL)
            Py_CLEAR(flags);
        else
            PyTuple_SET_ITEM(flags, i, s);
    }
    for (int i = 0; rpc != NULL && i < N_RPC; i++) {
        PyObject *s = PyUnicode_FromString(RPC_WORDS[i]);
        if (s == NULL)
            Py_CLEAR(rpc);
        else
            PyTuple_SET_ITEM(rpc, i, s);
    }
    PyObject *kw = names ? PyFrozenSet_New(names) : NULL;
    Py_XDECREF(names);
    if (kw == NULL || flags == NULL || rpc == NULL || PyModule_AddObject(m, "KEYWORDS", kw) < 0) {
        Py_XDECREF(kw);
        goto fail;
    }
    if (PyModule_AddObject(m, "FLAG_NAMES", flags) < 0)
        goto fail;
    flags = NULL;
    if (PyModule_AddObject(m, "RPC_WORDS", rpc) < 0)
        goto fail;
    return m;
fail:
    Py_XDECREF(flags);
    Py_XDECREF(rpc);
    Py_DECREF(m);
    return NULL;
}
