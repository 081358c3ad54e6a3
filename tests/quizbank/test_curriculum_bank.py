"""The shipped bank as a whole: ids unique across quizzes, references that resolve to a title
and a URL, no near-duplicate prompts, and every explanation answering each wrong choice."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bot.quizbank import Question
from bot.quizbank.files import SHIPPED_DIR, load_bank, load_quizzes
from bot.quizbank.schema import Quiz

LOCALES = ("en", "id")


@pytest.fixture(scope="module")
def quizzes() -> list[Quiz]:
    loaded, problems = load_quizzes([SHIPPED_DIR])
    assert problems == []
    return loaded


def all_questions(quizzes: list[Quiz]) -> list[Question]:
    return [q for quiz in quizzes for q in quiz.questions]


# ---------------------------------------------------------------------------- ids and references


def test_question_ids_are_unique_across_the_shipped_quizzes(quizzes: list[Quiz]) -> None:
    counts = Counter(q.id for q in all_questions(quizzes))
    assert [qid for qid, n in counts.items() if n > 1] == []
    assert len(counts) == 84
    # Issue 25 removed two near-duplicates and added two new points under new ids; issue 35
    # removed nine more (the same fact asked twice) and added nine new points.
    assert {"ls-15", "ma-11"}.isdisjoint(counts) and "ma-18" in counts
    removed = {"mp-07", "ga-08", "as-17", "ma-02", "ma-07", "ls-14", "ls-18", "lp-08", "lp-09"}
    added = {"mp-09", "ga-09", "as-18", "ma-19", "ma-20", "ls-19", "ls-20", "lp-18", "lp-19"}
    assert removed.isdisjoint(counts) and added <= set(counts)
    assert load_bank().quizzes.keys() == {quiz.id for quiz in quizzes}


URL = re.compile(r"^https://[a-z0-9.-]+\.[a-z]{2,}(/\S*)?$")


def test_every_reference_resolves_to_a_title_and_a_url(quizzes: list[Quiz]) -> None:
    titles: dict[str, set[str]] = {}
    for q in all_questions(quizzes):
        assert q.references, q.id
        for ref in q.references:
            assert len(ref.title.strip()) >= 5 and not ref.title.startswith("http"), (q.id, ref)
            assert URL.match(ref.url), (q.id, ref.url)
            titles.setdefault(ref.url, set()).add(ref.title)
    assert len(titles) > 30


# ---------------------------------------------------------------------------- near-duplicates

STOPWORDS = {
    "en": set(
        "a an the of in to and or is it its what which with for on at by as be does do that this "
        "from are was how why when where after before into per than then their there these they "
        "you your while one two".split()
    ),
    "id": set(
        "yang dan di ke dari untuk dengan apa itu ini pada dalam atau adalah tiap setiap sebuah "
        "satu dua lalu saat mana mengapa bagaimana berapa kini akan oleh juga tetapi".split()
    ),
}
WORD = re.compile(r"[^\W_]+")


def prompt_words(text: str, locale: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS[locale]}


def shared_share(a: str, b: str, locale: str) -> float:
    """The share of the two prompts' words (stop words left out) that both use."""
    words_a, words_b = prompt_words(a, locale), prompt_words(b, locale)
    return len(words_a & words_b) / len(words_a | words_b)


def near_duplicates(questions: list[Question]) -> list[tuple[str, str, str, float]]:
    found = []
    for i, a in enumerate(questions):
        for b in questions[i + 1 :]:
            for locale in LOCALES:
                share = shared_share(a.prompt[locale], b.prompt[locale], locale)
                if share > 0.5:
                    found.append((a.id, b.id, locale, round(share, 2)))
    return found


def test_no_two_prompts_share_more_than_half_their_words(quizzes: list[Quiz]) -> None:
    assert near_duplicates(all_questions(quizzes)) == []


def test_the_near_duplicate_check_catches_a_reworded_copy(quizzes: list[Quiz]) -> None:
    original = next(q for q in all_questions(quizzes) if q.id == "ga-01")
    copy = original.model_copy(
        update={
            "id": "copy",
            "prompt": {
                "en": original.prompt["en"].replace("Adam", "SGD").replace("batch 32", "batch 64"),
                "id": original.prompt["id"].replace("Adam", "SGD"),
            },
        }
    )
    assert [(a, b) for a, b, *_ in near_duplicates([original, copy])] == [
        ("ga-01", "copy"),
        ("ga-01", "copy"),
    ]
    assert shared_share("What does autocast do?", "Where does the bubble go?", "en") == 0


# ---------------------------------------------------------------------------- wrong choices answered

# For every wrong choice, in order (en and id): a word of that choice that its clause in the
# explanation repeats and the right answer does not use. Picked as the rarest such word in the
# bank's explanations, then checked by hand; a clause removed from an explanation fails here.
DISTRACTOR_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "as-01": {"en": ('replicas', 'first', 'noisier'), "id": ('menyimpang', 'dibuang', 'pembaruannya')},
    "as-02": {"en": ('sync', 'synchronized', 'error'), "id": ('sinkronisasi', 'sinkron', 'error')},
    "as-03": {"en": ('keeps', 'reduce-scatter', 'lost'), "id": ('sebagai shard', 'reduce-scatter', 'hilang')},
    "as-04": {"en": ('0.1', '0.8', '0.05'), "id": ('0.1', '0.8', '0.05')},
    "as-05": {"en": ('iteration', 'averaged', '1k'), "id": ('langsung', 'harus', 'kehilangan')},
    "as-06": {"en": ('4e-4', '1e-4', 'larger'), "id": ('4e-4', '1e-4', 'terakumulasi')},
    "as-07": {"en": ('fp64', 'warm-up', 'clip'), "id": ('fp64', 'keduanya', 'micro-batch')},
    "as-08": {"en": ('dividing', 'rounding', 'longer'), "id": ('membagi', 'pembulatan', 'lebih panjang')},
    "as-09": {"en": ('position', 'padded', 'padding'), "id": ('posisi', 'attention', 'menyumbang')},
    "as-10": {"en": ('exact', 'gives', 'leave'), "id": ('tokennya', 'rata-ratanya', 'biarkan')},
    "as-11": {"en": ('dataloader', 'optimizer', 'pytorch'), "id": ('dataloader', 'otomatis', 'pytorch')},
    "as-12": {"en": ('updates', 'stretch', 'precede'), "id": ('menghitung', 'warm-up', 'optimizer.step')},
    "as-13": {"en": ('3/16', '75%', 'full'), "id": ('3/16', '75%', 'penuh')},
    "as-14": {"en": ('micro-batches', 'losses', 'full'), "id": ('atas', 'total', 'pembagian')},
    "as-15": {"en": ('every', '0.25', 'anywhere'), "id": ('batas', '0.25', 'clipping')},
    "as-16": {"en": ('accumulated', 'generator', 'drawn'), "id": ('terakumulasi', 'mengambil', 'diambil')},
    "as-18": {"en": ('stored', 'reduce_dtype', 'gradscaler'), "id": ('penyimpanan', 'reduce_dtype', 'gradscaler')},
    "ga-01": {"en": ('faster', 'shrink', 'skip'), "id": ('lebih cepat', 'mengecil', 'dilewatkan')},
    "ga-02": {"en": ('4', '8', '12'), "id": ('4', '8', '12')},
    "ga-03": {"en": ('every', 'then step()', 'before'), "id": ('setelah tiap micro-batch', 'lalu step()', 'sebelum')},
    "ga-04": {"en": ('multipl', 'size', 'averag'), "id": ('batch', 'ukuran', 'merata-ratakan')},
    "ga-05": {"en": ('micro-batches', 'momentum', 'layernorm'), "id": ('micro-batch', 'momentum', 'saja')},
    "ga-06": {"en": ('peak', 'noisier', 'times'), "id": ('puncak', 'noisy', 'kali')},
    "ga-07": {"en": ("micro-batch's", 'effective', 'fourth'), "id": ('melihat', 'efektifnya', 'keempat')},
    "ga-09": {"en": ('only', 'momentum', 'error'), "id": ('hanya', 'momentum', 'error')},
    "lp-01": {"en": ('precision', 'chosen', 'factors'), "id": ('presisi', 'hybrid', 'faktor')},
    "lp-02": {"en": ('bias', 'subnormals', 'negative'), "id": ('bias', 'subnormal', 'negatif')},
    "lp-03": {"en": ("tensor's", 'gradscaler', 'start-up'), "id": ('sendiri', 'oleh', 'ditetapkan')},
    "lp-04": {"en": ('history', 'row', 'code'), "id": ('riwayat', 'baris', 'eksponen')},
    "lp-05": {"en": ('5', 'faster', 'bf16'), "id": ('5', '23', 'bf16')},
    "lp-06": {"en": ('on by default', 'torch.tf32', 'dtype'), "id": ('aktif', 'torch.tf32', 'dtype')},
    "lp-07": {"en": ('accumulate', 'setting', 'nondeterministic'), "id": ('berakumulasi', 'setelan', 'nondeterministik')},
    "lp-10": {"en": ('fp32', 'division', 'matmuls'), "id": ('sama', 'pembagian', 'tf32')},
    "lp-11": {"en": ('alike', 'errors', 'worse'), "id": ('relatif', 'berurutan', 'buruk')},
    "lp-12": {"en": ('protects', '1/√', 'row'), "id": ('melindungi', '1/√', 'baris')},
    "lp-13": {"en": ('reduces', 'sharded', 'cance'), "id": ('mereduksi', 'sharding', 'meniadakan')},
    "lp-14": {"en": ('alone', 'subnormals', '1.18e-38'), "id": ('tersimpan', 'menolkan', '1.18e-38')},
    "lp-15": {"en": ('exponent', 'upward', 'above'), "id": ('eksak', '1004', '256')},
    "lp-16": {"en": ('saturat', 'nearest', '70000'), "id": ('70000', 'nilai', '70000')},
    "lp-17": {"en": ('where', 'zero', 'hold'), "id": ('mantissa', 'nol', 'menyimpan')},
    "lp-18": {"en": ('exactly', 'rounds', 'nan'), "id": ('persis', 'membulatkan', 'nan')},
    "lp-19": {"en": ('same', 'halves', 'ties'), "id": ('sama', 'separuh', 'nilai tengah')},
    "ls-01": {"en": ('536', 'warm-up', 'capped'), "id": ('65536', 'warm-up', 'dibatasi')},
    "ls-02": {"en": ('zero', 'redo', '65504'), "id": ('nol', 'lalu', '65504')},
    "ls-03": {"en": ('after', 'stepped', 'calibra'), "id": ('dipanggil', 'scheduler', 'pertamanya')},
    "ls-04": {"en": ('grow', 'shrinking', 'init'), "id": ('naik', 'scaler', 'skala awal')},
    "ls-05": {"en": ('unscal', 'divides', 'overflowing'), "id": ('membagi', 'scaler.step', 'inf')},
    "ls-06": {"en": ('you', 'power', 'divide'), "id": ('dikalikan', 'pangkat', 'dipanggil')},
    "ls-07": {"en": ('after', 'micro-batch', 'epoch'), "id": ('micro-batch', 'micro-batch', 'epoch')},
    "ls-08": {"en": ('micro-batch', 'restarts', 'halves'), "id": ('micro-batch', 'dimulai', 'sampai')},
    "ls-09": {"en": ('mantissa', 'epsilon', 'runs'), "id": ('mantissa', 'epsilon', 'error')},
    "ls-10": {"en": ('optimizer.state', 'recomput', 'loading'), "id": ('optimizer.state', 'lama', 'pemuatan')},
    "ls-11": {"en": ("fp16's", 'kept', 'bf16'), "id": ('dibulatkan', 'persis', 'bf16')},
    "ls-12": {"en": ('16-bit', 'weights', 'moments'), "id": ('16-bit', 'seperempat', 'juga')},
    "ls-13": {"en": ('both', 'quantized', 'saved'), "id": ('bobot', 'dikuantisasi', 'disk')},
    "ls-16": {"en": ('iteration', 'optimizers', 'optimizer'), "id": ('iterasi', 'muncul', 'optimizer')},
    "ls-17": {"en": ('dtype', 'scaler.step', 'itself'), "id": ('dtype', 'scaler.step', 'bfloat16')},
    "ls-19": {"en": ('lost', '1.0001', '1.0078'), "id": ('hilang', '1.0001', '1.0078')},
    "ls-20": {"en": ('mantissa', 'init_scale', 'fp64'), "id": ('mantissa', 'init_scale', 'fp64')},
    "ma-01": {"en": ('cpu', 'cpu', "input's"), "id": ('softmax', 'cpu', 'inputnya')},
    "ma-03": {"en": ('comput', 'float32', 'lists'), "id": ('16-bit', 'float32', 'daftar')},
    "ma-04": {"en": ('ops', 'addmm', 'allowed'), "id": ('keduanya', 'addmm', 'error')},
    "ma-05": {"en": ('runs', 'outer', 'promot'), "id": ('blok', 'berlaku', 'penjumlahan')},
    "ma-06": {"en": ('function', 'backward', 'model.float'), "id": ('kustom', 'backward', 'model.float')},
    "ma-08": {"en": ('extra', 'doubl', '50'), "id": ('10 layer', 'lipat', '50')},
    "ma-09": {"en": ('reentrant', 'recomputed', 'updated'), "id": ('reentrant', 'forward', 'parameternya')},
    "ma-10": {"en": ('unbiased', 'recomputation', 'checkpointed'), "id": ('bias', 'selama', 'dibungkus')},
    "ma-12": {"en": ('states only', '64', 'every'), "id": ('saja', '64', 'ada')},
    "ma-13": {"en": ("mlp's", 'projections', 'half'), "id": ('lebar', 'proyeksi', 'suku')},
    "ma-14": {"en": ('128', 'syncs', '16'), "id": ('128', 'statisti', 'menggabungkan')},
    "ma-15": {"en": ('normalises', 'stops', 'identity'), "id": ('menormalisasi', 'berhenti', 'identitas')},
    "ma-16": {"en": ('momentum', 'groups', 'second'), "id": ('momentum', 'kelompok', 'statistik')},
    "ma-17": {"en": ('accumulation', 'ghost', 'final'), "id": ('menggabungkan', 'ghost', 'terakhir')},
    "ma-18": {"en": ('communication', '63', 'sends'), "id": ('komunikasi', '63', 'mengirim')},
    "ma-19": {"en": ('reused', 'inside', 'eager'), "id": ('dipakai ulang', 'di dalam fungsi', 'eager')},
    "ma-20": {"en": ('memory', 'speed', 'exact'), "id": ('hemat', 'kecepatan', 'persis')},
    "mp-01": {"en": ('restore', 'overflow', 'computes'), "id": ('salinan', 'overflow', 'fp32')},
    "mp-02": {"en": ('activatio', 'updates', 'losses'), "id": ('aktivasi', 'pembaruan', 'softmax')},
    "mp-03": {"en": ('more', 'fewer', 'smallest'), "id": ('mantissanya', 'sedikit', 'terkecil')},
    "mp-04": {"en": ('inputs', 'products', 'range'), "id": ('input', 'eksak', 'rentang')},
    "mp-05": {"en": ('accuracy', 'end-to-end', 'moments'), "id": ('akurasi', 'end-to-end', 'momen')},
    "mp-06": {"en": ('torch.cuda.amp.autocast', 'model.half', 'torch.cpu.amp'), "id": ('torch.cuda.amp.autocast', 'model.half', 'torch.cpu.amp')},
    "mp-08": {"en": ('every', 'values', 'loss'), "id": ('semua', 'nilai', 'menskalakan')},
    "mp-09": {"en": ('half', '1.0001', '50'), "id": ('setengah', '1.0001', '50')},
}  # fmt: skip


def unanswered(question: Question, keys: dict[str, tuple[str, ...]]) -> list[tuple[str, int]]:
    """(locale, choice index) of each wrong choice whose key the explanation does not repeat."""
    missing = []
    for locale in LOCALES:
        choices = [c.lower() for c in question.choices[locale]]
        wrong = [i for i in range(len(choices)) if i != question.answer]
        assert len(keys[locale]) == len(wrong), (question.id, locale)
        explanation = question.explanation[locale].lower()
        for index, key in zip(wrong, keys[locale], strict=True):
            key = key.lower()
            in_choice = key in choices[index] and key not in choices[question.answer]
            if not (in_choice and key in explanation):
                missing.append((locale, index))
    return missing


def test_every_explanation_answers_each_wrong_choice(quizzes: list[Quiz]) -> None:
    questions = all_questions(quizzes)
    assert set(DISTRACTOR_KEYS) == {q.id for q in questions}
    for q in questions:
        assert unanswered(q, DISTRACTOR_KEYS[q.id]) == [], q.id


def test_a_dropped_clause_is_caught(quizzes: list[Quiz]) -> None:
    mp01 = next(q for q in all_questions(quizzes) if q.id == "mp-01")
    keys = DISTRACTOR_KEYS["mp-01"]
    # The clause on the first wrong choice (B) goes: its key no longer appears.
    cut = {
        locale: re.sub(re.escape(keys[locale][0]), "...", text, flags=re.IGNORECASE)
        for locale, text in mp01.explanation.items()
    }
    assert unanswered(mp01.model_copy(update={"explanation": cut}), keys) == [
        ("en", 1),
        ("id", 1),
    ]


# ---------------------------------------------------------------------------- give-aways and balance

HEDGES = {
    "en": re.compile(
        r"\b(may|might|can|could|usually|often|typically|generally|mostly|depending|allow)\b"
    ),
    "id": re.compile(r"\b(boleh|bisa|biasanya|sering|umumnya|tergantung|mungkin)\b"),
}


def hedged_alone(question: Question) -> list[str]:
    """Locales where the right choice is the only hedged one (a member picks the cautious one)."""
    found = []
    for locale in LOCALES:
        hedged = [bool(HEDGES[locale].search(c.lower())) for c in question.choices[locale]]
        if hedged[question.answer] and sum(hedged) == 1:
            found.append(locale)
    return found


def test_no_right_answer_is_the_only_hedged_choice(quizzes: list[Quiz]) -> None:
    assert [(q.id, hedged_alone(q)) for q in all_questions(quizzes) if hedged_alone(q)] == []
    mp05 = next(q for q in all_questions(quizzes) if q.id == "mp-05")
    cautious = {**mp05.choices, "en": list(mp05.choices["en"])}
    cautious["en"][0] = "Less tensor memory and more speed, as hardware and workload allow"
    cautious["en"][1:] = ["Higher accuracy", "Twice the speed on any GPU", "A smaller state"]
    assert hedged_alone(mp05.model_copy(update={"choices": cautious})) == ["en"]


def test_every_quiz_spreads_its_questions_over_the_three_difficulties(
    quizzes: list[Quiz],
) -> None:
    for quiz in quizzes:
        levels = Counter(q.difficulty for q in quiz.questions)
        assert set(levels) == {1, 2, 3}, (quiz.id, levels)
        assert max(levels.values()) <= 0.6 * len(quiz.questions), (quiz.id, levels)
