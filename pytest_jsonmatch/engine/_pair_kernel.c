/* structural_f1's pair scores for a few elements, and the dominant-pair test, compiled.

   similarity_rows(expected, actual, t, w) returns what pair_scores computes in Python for
   two lists of flat objects under the built-in policy (Jaccard strings, threshold numbers,
   exact booleans, nulls absent): (rows, scale), the pair similarities times scale as a list
   of rows, with the same floats (the same operations, in the same order). It returns None
   for anything else (a nested value, a NaN, a non-string key, ...), and the Python code,
   which names errors by field, takes over. dominant_pairs(rows, margin) answers as
   align.dominant_pairs does.

   Why C: at one to twenty elements a pair score is a handful of arithmetic operations, and
   in Python the interpreter's cost per operation is most of structural_f1's time. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ABSENT = 0, TEXT = 1, NUMBER = 2, BOOLEAN = 3 };

typedef struct {
    unsigned char kind;
    double number;      /* NUMBER: the value as a float; BOOLEAN: 0 or 1 */
    Py_ssize_t text;    /* TEXT: its entry in the token table */
} Cell;

typedef struct {
    Py_ssize_t start, size;  /* a text's distinct token ids, sorted, in Tokens.ids */
} TokenSet;

typedef struct {
    PyObject *texts;  /* str -> index into sets */
    PyObject *vocab;  /* token -> id */
    TokenSet *sets;
    Py_ssize_t n_sets, cap_sets;
    Py_ssize_t *ids;
    Py_ssize_t n_ids, cap_ids;
} Tokens;

/* Result of reading a value: a cell, nothing (null), or a shape the Python path must take. */
enum { READ_OK, READ_NULL, READ_OTHER, READ_ERROR };

static int
compare_ids(const void *x, const void *y)
{
    Py_ssize_t a = *(const Py_ssize_t *)x, b = *(const Py_ssize_t *)y;
    return (a > b) - (a < b);
}

static int
grow(void **buffer, Py_ssize_t *cap, Py_ssize_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t cap2 = *cap ? *cap : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = PyMem_Realloc(*buffer, (size_t)cap2 * item);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buffer = p;
    *cap = cap2;
    return 0;
}

/* The token set of text (text.lower().split(), as a set), made once per distinct text. */
static Py_ssize_t
text_entry(Tokens *tk, PyObject *text)
{
    PyObject *known = PyDict_GetItemWithError(tk->texts, text);
    if (known != NULL)
        return PyLong_AsSsize_t(known);
    if (PyErr_Occurred())
        return -1;
    PyObject *lowered = PyObject_CallMethod(text, "lower", NULL);
    if (lowered == NULL)
        return -1;
    PyObject *parts = PyUnicode_Split(lowered, NULL, -1);
    Py_DECREF(lowered);
    if (parts == NULL)
        return -1;
    Py_ssize_t count = PyList_GET_SIZE(parts);
    if (grow((void **)&tk->ids, &tk->cap_ids, tk->n_ids + count, sizeof(Py_ssize_t)) < 0)
        goto fail;
    Py_ssize_t *ids = tk->ids + tk->n_ids;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *token = PyList_GET_ITEM(parts, k);
        PyObject *id = PyDict_GetItemWithError(tk->vocab, token);
        if (id == NULL) {
            if (PyErr_Occurred())
                goto fail;
            id = PyLong_FromSsize_t(PyDict_GET_SIZE(tk->vocab));
            if (id == NULL)
                goto fail;
            int bad = PyDict_SetItem(tk->vocab, token, id);
            Py_DECREF(id);
            if (bad < 0)
                goto fail;
            id = PyDict_GetItemWithError(tk->vocab, token);
        }
        ids[k] = PyLong_AsSsize_t(id);
    }
    Py_DECREF(parts);
    qsort(ids, (size_t)count, sizeof(Py_ssize_t), compare_ids);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t k = 0; k < count; k++)
        if (distinct == 0 || ids[distinct - 1] != ids[k])
            ids[distinct++] = ids[k];
    if (grow((void **)&tk->sets, &tk->cap_sets, tk->n_sets + 1, sizeof(TokenSet)) < 0)
        return -1;
    tk->sets[tk->n_sets].start = tk->n_ids;
    tk->sets[tk->n_sets].size = distinct;
    tk->n_ids += distinct;
    PyObject *index = PyLong_FromSsize_t(tk->n_sets);
    if (index == NULL)
        return -1;
    int bad = PyDict_SetItem(tk->texts, text, index);
    Py_DECREF(index);
    if (bad < 0)
        return -1;
    return tk->n_sets++;
fail:
    Py_DECREF(parts);
    return -1;
}

/* What pair_scores' collection takes as a field: str, int, bool, a finite float, by exact
   type; null is no field; anything else goes to the Python path. */
static int
value_kind(PyObject *value, double *number)
{
    if (value == Py_None)
        return READ_NULL;
    if (PyUnicode_CheckExact(value))
        return READ_OK;
    if (PyBool_Check(value)) {
        *number = value == Py_True ? 1.0 : 0.0;
        return READ_OK;
    }
    if (PyLong_CheckExact(value)) {
        double x = PyLong_AsDouble(value);
        if (x == -1.0 && PyErr_Occurred()) {  /* too large for a float: Python reports it */
            PyErr_Clear();
            return READ_OTHER;
        }
        *number = x;
        return READ_OK;
    }
    if (PyFloat_CheckExact(value)) {
        double x = PyFloat_AS_DOUBLE(value);
        if (!isfinite(x))
            return READ_OTHER;  /* an error the Python path names by its field */
        *number = x;
        return READ_OK;
    }
    return READ_OTHER;
}

static int
read_value(Tokens *tk, PyObject *value, Cell *cell)
{
    double number = 0.0;
    int got = value_kind(value, &number);
    if (got != READ_OK)
        return got;
    if (PyUnicode_CheckExact(value)) {
        Py_ssize_t entry = text_entry(tk, value);
        if (entry < 0)
            return READ_ERROR;
        cell->kind = TEXT;
        cell->text = entry;
    }
    else {
        cell->kind = PyBool_Check(value) ? BOOLEAN : NUMBER;
        cell->number = number;
    }
    return READ_OK;
}

static Py_ssize_t
shared_tokens(const Tokens *tk, Py_ssize_t x, Py_ssize_t y, Py_ssize_t *size_x, Py_ssize_t *size_y)
{
    const TokenSet sx = tk->sets[x], sy = tk->sets[y];
    const Py_ssize_t *p = tk->ids + sx.start, *q = tk->ids + sy.start;
    Py_ssize_t i = 0, j = 0, common = 0;
    while (i < sx.size && j < sy.size) {
        if (p[i] == q[j]) {
            common++;
            i++;
            j++;
        }
        else if (p[i] < q[j])
            i++;
        else
            j++;
    }
    *size_x = sx.size;
    *size_y = sy.size;
    return common;
}

/* Reads one side: each element's fields into cells (columns as numbered in `columns`;
   `add` numbers new keys, for the expected side, in the order the Python collection meets
   them: a key's first non-null value), and its count of fields. Returns 1 when
   done, 0 for a shape the Python path must take, -1 on error. */
static int
read_side(Tokens *tk, PyObject *elements, PyObject *columns, int add, Cell **cells,
          Py_ssize_t *n_cols, Py_ssize_t *sizes)
{
    Py_ssize_t n = PyList_GET_SIZE(elements);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *element = PyList_GET_ITEM(elements, i);
        if (!PyDict_CheckExact(element))
            return 0;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(element, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key))
                return 0;
            double unused;
            int got = value_kind(value, &unused);
            if (got == READ_OTHER)
                return 0;
            if (add && got == READ_OK) {
                PyObject *known = PyDict_GetItemWithError(columns, key);
                if (known == NULL) {
                    if (PyErr_Occurred())
                        return -1;
                    PyObject *index = PyLong_FromSsize_t(PyDict_GET_SIZE(columns));
                    if (index == NULL)
                        return -1;
                    int bad = PyDict_SetItem(columns, key, index);
                    Py_DECREF(index);
                    if (bad < 0)
                        return -1;
                }
            }
        }
    }
    *n_cols = PyDict_GET_SIZE(columns);
    Cell *table = PyMem_Calloc((size_t)(n ? n : 1) * (size_t)(*n_cols ? *n_cols : 1), sizeof(Cell));
    if (table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *cells = table;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *element = PyList_GET_ITEM(elements, i);
        Py_ssize_t pos = 0, count = 0;
        PyObject *key, *value;
        while (PyDict_Next(element, &pos, &key, &value)) {
            Cell cell = {ABSENT, 0.0, 0};
            int got = read_value(tk, value, &cell);
            if (got == READ_ERROR)
                return -1;
            if (got == READ_OTHER)
                return 0;
            if (got == READ_NULL)
                continue;
            count++;
            PyObject *index = PyDict_GetItemWithError(columns, key);
            if (index == NULL) {
                if (PyErr_Occurred())
                    return -1;
                continue;  /* an actual field no expected element has: counted, not scored */
            }
            table[i * *n_cols + PyLong_AsSsize_t(index)] = cell;
        }
        sizes[i] = count;
    }
    return 1;
}

static PyObject *
similarity_rows(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *expected, *actual;
    double t, w;
    if (!PyArg_ParseTuple(args, "OOdd", &expected, &actual, &t, &w))
        return NULL;
    if (!PyList_CheckExact(expected) || !PyList_CheckExact(actual))
        Py_RETURN_NONE;  /* tuples and list subclasses: the Python path */
    Py_ssize_t n = PyList_GET_SIZE(expected), m = PyList_GET_SIZE(actual);
    PyObject *result = NULL;
    Tokens tk = {PyDict_New(), PyDict_New(), NULL, 0, 0, NULL, 0, 0};
    PyObject *columns = PyDict_New();
    Cell *ce = NULL, *ca = NULL;
    Py_ssize_t n_cols = 0, n_cols_a = 0;
    Py_ssize_t *sizes = PyMem_Calloc((size_t)(n + m + 1), sizeof(Py_ssize_t));
    double *tp = PyMem_Calloc((size_t)(n * m + 1), sizeof(double));
    Py_ssize_t *count_e = NULL, *count_a = NULL, *both = NULL;
    PyObject *rows = NULL;
    if (tk.texts == NULL || tk.vocab == NULL || columns == NULL || sizes == NULL || tp == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t *size_e = sizes, *size_a = sizes + n;
    int got = read_side(&tk, expected, columns, 1, &ce, &n_cols, size_e);
    if (got == 1)
        got = read_side(&tk, actual, columns, 0, &ca, &n_cols_a, size_a);
    if (got <= 0) {
        if (got == 0)
            result = Py_NewRef(Py_None);
        goto done;
    }
    count_e = PyMem_Calloc((size_t)(2 * n_cols + 1), sizeof(Py_ssize_t));
    if (count_e == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    count_a = count_e + n_cols;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t c = 0; c < n_cols; c++)
            count_e[c] += ce[i * n_cols + c].kind != ABSENT;
    for (Py_ssize_t j = 0; j < m; j++)
        for (Py_ssize_t c = 0; c < n_cols; c++)
            count_a[c] += ca[j * n_cols + c].kind != ABSENT;

    /* Column by column, in the expected side's order, as the Python path adds them: each
       pair's sum sees the same additions in the same order. */
    const double power = w == 0.0 ? 0.0 : 1.0 / w;
    Py_ssize_t shared = 0, partial = 0;
    for (Py_ssize_t c = 0; c < n_cols; c++) {
        if (count_a[c] == 0)
            continue;
        if (count_e[c] == n && count_a[c] == m)
            shared++;
        else
            partial++;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Cell x = ce[i * n_cols + c];
            if (x.kind == ABSENT)
                continue;
            double *row = tp + i * m;
            for (Py_ssize_t j = 0; j < m; j++) {
                const Cell y = ca[j * n_cols + c];
                if (y.kind != x.kind)
                    continue;  /* absent, or another JSON type: no score */
                if (x.kind == TEXT) {
                    Py_ssize_t sx, sy;
                    Py_ssize_t common = shared_tokens(&tk, x.text, y.text, &sx, &sy);
                    if (common)
                        row[j] += (double)common / (double)(sx + sy - common);
                    else if (sx == 0 && sy == 0)
                        row[j] += 1.0;  /* two strings without tokens */
                }
                else if (x.kind == NUMBER) {
                    double d = fabs(x.number - y.number);
                    if (d <= t)
                        row[j] += w == 0.0 ? 1.0 : 1.0 - pow(d / t, power);
                }
                else if (x.number == y.number) {
                    row[j] += 1.0;
                }
            }
        }
    }

    double scale = 1.0;
    int uniform = partial == 0 && shared > 0;
    for (Py_ssize_t k = 0; uniform && k < n + m; k++)
        uniform = sizes[k] == shared;
    if (!uniform && !(partial == 0 && shared > 0)) {
        /* fields each pair has in common: the shared ones, plus partial columns they share */
        both = PyMem_Calloc((size_t)(n * m + 1), sizeof(Py_ssize_t));
        if (both == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t k = 0; k < n * m; k++)
            both[k] = shared;
        for (Py_ssize_t c = 0; c < n_cols; c++) {
            if (count_a[c] == 0 || (count_e[c] == n && count_a[c] == m))
                continue;
            for (Py_ssize_t i = 0; i < n; i++) {
                if (ce[i * n_cols + c].kind == ABSENT)
                    continue;
                for (Py_ssize_t j = 0; j < m; j++)
                    both[i * m + j] += ca[j * n_cols + c].kind != ABSENT;
            }
        }
    }
    rows = PyList_New(n);
    if (rows == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_New(m);
        if (row == NULL)
            goto done;
        PyList_SET_ITEM(rows, i, row);
        for (Py_ssize_t j = 0; j < m; j++) {
            double sum = tp[i * m + j], value;
            if (uniform)
                value = sum;  /* every score is its sum over `shared` fields: scale */
            else if (both == NULL)  /* every pair shares the same fields */
                value = sum / (double)(size_e[i] - shared + size_a[j]);
            else {
                Py_ssize_t uni = size_e[i] + size_a[j] - both[i * m + j];
                value = uni ? sum / (double)uni : 1.0;
            }
            PyObject *number = PyFloat_FromDouble(value);
            if (number == NULL)
                goto done;
            PyList_SET_ITEM(row, j, number);
        }
    }
    if (uniform)
        scale = (double)shared;
    result = Py_BuildValue("(Od)", rows, scale);

done:
    Py_XDECREF(rows);
    PyMem_Free(both);
    Py_XDECREF(tk.texts);
    Py_XDECREF(tk.vocab);
    Py_XDECREF(columns);
    PyMem_Free(tk.sets);
    PyMem_Free(tk.ids);
    PyMem_Free(ce);
    PyMem_Free(ca);
    PyMem_Free(sizes);
    PyMem_Free(tp);
    PyMem_Free(count_e);
    return result;
}

/* A line's largest value (its first position) and its second largest, duplicates counted,
   as max(), list.index() and sorted(line)[-2] give them. */
static int
line_best(PyObject *rows, Py_ssize_t k, Py_ssize_t length, int by_column, double *best,
          Py_ssize_t *at, double *second)
{
    *best = *second = -INFINITY;
    *at = 0;
    for (Py_ssize_t l = 0; l < length; l++) {
        PyObject *row = PyList_GET_ITEM(rows, by_column ? l : k);
        if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) <= (by_column ? k : l)) {
            PyErr_SetString(PyExc_TypeError, "dominant_pairs needs a list of equal-length lists");
            return -1;
        }
        double v = PyFloat_AsDouble(PyList_GET_ITEM(row, by_column ? k : l));
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        if (v > *best) {
            *second = *best;
            *best = v;
            *at = l;
        }
        else if (v > *second)
            *second = v;
    }
    return 0;
}

static PyObject *
dominant_pairs(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *rows;
    double margin;
    if (!PyArg_ParseTuple(args, "O!d", &PyList_Type, &rows, &margin))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows), m = 0;
    if (n) {
        PyObject *first = PyList_GET_ITEM(rows, 0);
        if (!PyList_CheckExact(first)) {
            PyErr_SetString(PyExc_TypeError, "dominant_pairs needs a list of lists");
            return NULL;
        }
        m = PyList_GET_SIZE(first);
    }
    /* the shorter side's elements each pick their best partner */
    int by_column = n > m;
    Py_ssize_t lines = by_column ? m : n, length = by_column ? n : m;
    Py_ssize_t *partner = PyMem_Malloc((size_t)(lines + 1) * sizeof(Py_ssize_t));
    double *score = PyMem_Malloc((size_t)(lines + 1) * sizeof(double));
    char *taken = PyMem_Calloc((size_t)(length + 1), 1);
    PyObject *result = NULL;
    if (partner == NULL || score == NULL || taken == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < lines; k++) {
        double best, second;
        Py_ssize_t at;
        if (line_best(rows, k, length, by_column, &best, &at, &second) < 0)
            goto done;
        if (taken[at] || (length > 1 && second > best - margin)) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        taken[at] = 1;
        partner[k] = at;
        score[k] = best;
    }
    result = PyList_New(lines);
    if (result == NULL)
        goto done;
    Py_ssize_t out = 0;
    /* in expected order: by line when lines are rows, else by the row each column chose */
    for (Py_ssize_t r = 0; r < (by_column ? length : lines); r++) {
        Py_ssize_t k = r;
        if (by_column) {
            if (!taken[r])
                continue;
            for (k = 0; partner[k] != r; k++)
                ;
        }
        PyObject *pair = by_column ? Py_BuildValue("(nnd)", r, k, score[k])
                                   : Py_BuildValue("(nnd)", k, partner[k], score[k]);
        if (pair == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, out++, pair);
    }
done:
    PyMem_Free(partner);
    PyMem_Free(score);
    PyMem_Free(taken);
    return result;
}

static PyMethodDef methods[] = {
    {"dominant_pairs", dominant_pairs, METH_VARARGS,
     "dominant_pairs(rows, margin) -> list[(i, j, score)] | None\n\n"
     "align.dominant_pairs, compiled: the same answer for a list of rows of floats."},
    {"similarity_rows", similarity_rows, METH_VARARGS,
     "similarity_rows(expected, actual, t, w) -> (rows, scale) | None\n\n"
     "structural_f1's pair similarities of two lists of flat objects under the built-in\n"
     "policy, as pair_scores computes them; None when the Python path must take them."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_pair_kernel",
    .m_doc = "structural_f1's pair scores for a few elements, compiled.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__pair_kernel(void)
{
    return PyModule_Create(&module);
}
