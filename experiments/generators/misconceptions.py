"""The named misconceptions distractors stand for (torch-free).

Each entry is a one-line description per language with ``{fields}`` a template fills
in; :func:`miss` turns it into a wrong :class:`Option`. The names are stable (they are
recorded with each instance, so the bot can count which misconceptions members hold).
"""

from __future__ import annotations

from typing import Any

from experiments.generators.instance import LANGS, Option, Text, both
from experiments.generators.misconceptions_training import TRAINING

MISCONCEPTIONS: dict[str, Text] = {
    # ---- number formats
    "stored-exactly": {
        "en": "thinks the dtype stores the decimal exactly as typed",
        "id": "mengira dtype menyimpan angka desimal persis seperti yang diketik",
    },
    "truncates": {
        "en": "chops the extra bits (rounds toward zero) instead of rounding to the nearest value",
        "id": "memotong bit yang berlebih (membulatkan ke arah nol), padahal dibulatkan ke nilai terdekat",
    },
    "rounds-away": {
        "en": "rounds away from zero instead of to the nearest value",
        "id": "membulatkan menjauhi nol, padahal yang benar ke nilai terdekat",
    },
    "rounded-directly": {
        "en": "rounds the Python float straight to {fmt}, skipping torch's float32 step",
        "id": "membulatkan float Python langsung ke {fmt}, melewatkan langkah float32 yang dilakukan torch",
    },
    "wrong-format": {
        "en": "rounds to {other} instead of {fmt}",
        "id": "membulatkan ke {other}, bukan ke {fmt}",
    },
    "bf16-has-fp16-range": {
        "en": "gives bf16 the range of {other} (this is {other}'s answer); bf16 has fp32's exponent range",
        "id": "mengira rentang bf16 sama dengan {other} (ini jawaban untuk {other}); rentang eksponen bf16 sama dengan fp32",
    },
    "saturates": {
        "en": "thinks overflow clamps to the largest finite value, {max}; {fmt} gives inf",
        "id": "mengira overflow dijepit ke nilai berhingga terbesar, {max}; {fmt} menghasilkan inf",
    },
    "overflows-early": {
        "en": "thinks everything above {max} overflows, but values below the midpoint {mid} still round down to {max}",
        "id": "mengira semua nilai di atas {max} overflow, padahal nilai di bawah titik tengah {mid} tetap dibulatkan turun ke {max}",
    },
    "beyond-max": {
        "en": "takes {next}, one grid step above {max}, as representable; {max} is {fmt}'s largest finite value",
        "id": "menganggap {next}, satu langkah grid di atas {max}, dapat direpresentasikan; {max} adalah nilai berhingga terbesar {fmt}",
    },
    "overflow-gives-nan": {
        "en": "expects NaN, but a finite value that overflows becomes inf",
        "id": "mengira hasilnya NaN, padahal nilai berhingga yang overflow menjadi inf",
    },
    "no-subnormals": {
        "en": "forgets subnormals: values below the smallest normal, {tiny}, are not simply flushed to zero",
        "id": "melupakan subnormal: nilai di bawah normal terkecil, {tiny}, tidak langsung menjadi nol",
    },
    "off-by-one-exponent": {
        "en": "is off by one in the exponent (a factor of 2)",
        "id": "meleset satu pada eksponen (selisih faktor 2)",
    },
    "wrong-spacing": {
        "en": "moves two steps of the {fmt} grid instead of one",
        "id": "melangkah dua jarak grid {fmt}, bukan satu",
    },
    "e4m3-has-inf": {
        "en": "thinks float8_e4m3fn has an inf; it has none (its top code is NaN)",
        "id": "mengira float8_e4m3fn punya inf; format ini tidak punya (kode teratasnya NaN)",
    },
    "e4m3-overflow-nan": {
        "en": "expects NaN, as non-saturating converters (e.g. ml_dtypes) give; torch's cast saturated",
        "id": "mengira hasilnya NaN, seperti konverter yang tidak menjepit (misalnya ml_dtypes); cast di torch menjepit",
    },
    "ieee-style-max": {
        "en": "assumes an IEEE-style layout that reserves the top exponent, whose maximum would be 240",
        "id": "mengira tata letaknya bergaya IEEE yang mencadangkan eksponen teratas, sehingga maksimumnya 240",
    },
    "fp32-spacing": {
        "en": "uses fp32's spacing (24-bit significand) instead of {fmt}'s",
        "id": "memakai jarak antar-nilai fp32 (significand 24 bit), bukan milik {fmt}",
    },
    "machine-epsilon": {
        "en": "takes the machine epsilon ({eps}, the spacing at 1) as the spacing at every magnitude",
        "id": "menganggap epsilon mesin ({eps}, jarak di sekitar 1) berlaku di semua besaran",
    },
    "spacing-below": {
        "en": "takes the gap to the next lower value; at a power of two the gap below is half the gap above",
        "id": "mengambil jarak ke nilai di bawahnya; di pangkat dua, jarak ke bawah hanya separuh jarak ke atas",
    },
    "spacing-off-by-factor-2": {
        "en": "uses half the spacing, as if the format kept one more significand bit",
        "id": "memakai separuh jarak antar-nilai, seolah-olah formatnya menyimpan satu bit signifikan lebih",
    },
    "subnormal-spacing-shrinks": {
        "en": "thinks the spacing keeps halving below the smallest normal; subnormals are evenly spaced",
        "id": "mengira jaraknya terus mengecil di bawah normal terkecil; subnormal berjarak sama rata",
    },
    "exact-arithmetic": {
        "en": "computes with exact decimals, as if {fmt} rounded nothing",
        "id": "menghitung dengan desimal persis, seolah-olah {fmt} tidak membulatkan apa pun",
    },
    "fp32-result": {
        "en": "keeps the result in fp32; an fp16 op rounds its result to fp16",
        "id": "menganggap hasilnya tetap fp32; op fp16 membulatkan hasilnya ke fp16",
    },
    "grows-until-overflow": {
        "en": "thinks the sum keeps growing until it overflows",
        "id": "mengira jumlahnya terus bertambah sampai overflow",
    },
    "fp32-accumulator": {
        "en": "assumes the loop accumulates in fp32 like torch.sum does; `s = s + step` rounds to {fmt} every time",
        "id": "mengira loop menjumlahkan dalam fp32 seperti torch.sum; `s = s + step` membulatkan ke {fmt} setiap kali",
    },
    "sequential-fp16-sum": {
        "en": "thinks torch.sum adds one element at a time in fp16; it accumulates in fp32",
        "id": "mengira torch.sum menjumlahkan satu per satu dalam fp16; akumulatornya fp32",
    },
    "sum-returns-fp32": {
        "en": "forgets that the fp32 total is rounded back to the tensor's dtype, fp16",
        "id": "lupa bahwa total fp32 dibulatkan kembali ke dtype tensornya, fp16",
    },
    # ---- loss scaling
    "subnormals-keep-precision": {
        "en": "stops at the first scale where g·S is nonzero; as a subnormal it keeps fewer bits",
        "id": "berhenti pada skala pertama yang membuat g·S tidak nol; sebagai subnormal bitnya lebih sedikit",
    },
    "scale-to-one": {
        "en": "scales the gradient up to at least 1; fp16 keeps all 11 bits down to its smallest normal, 2^-14",
        "id": "menskalakan gradien sampai minimal 1; fp16 menyimpan ke-11 bitnya sampai normal terkecilnya, 2^-14",
    },
    "epsilon-as-threshold": {
        "en": "takes fp16's machine epsilon, 2^-10, as the smallest value it holds with full precision; that is the smallest normal, 2^-14",
        "id": "menganggap epsilon mesin fp16, 2^-10, sebagai nilai terkecil yang disimpan dengan presisi penuh; yang benar normal terkecil, 2^-14",
    },
    "default-scale": {
        "en": "takes GradScaler's default init_scale, 2^16, as if it always fit",
        "id": "memakai init_scale bawaan GradScaler, 2^16, seolah-olah selalu cocok",
    },
    "tracker-survives-overflow": {
        "en": "keeps counting clean steps across an overflow; the counter restarts at every inf/NaN",
        "id": "terus menghitung langkah bersih melewati overflow; penghitungnya mulai ulang di setiap inf/NaN",
    },
    "no-backoff": {
        "en": "thinks an overflow only skips the step and leaves the scale alone; it halves the scale",
        "id": "mengira overflow hanya melewati langkah tanpa mengubah skala; skalanya dibagi dua",
    },
    "grows-every-step": {
        "en": "doubles the scale after every clean step, ignoring growth_interval",
        "id": "menggandakan skala setiap langkah bersih, mengabaikan growth_interval",
    },
    "growth-off-by-one": {
        "en": "grows after growth_interval + 1 clean steps instead of growth_interval",
        "id": "menaikkan skala setelah growth_interval + 1 langkah bersih, bukan growth_interval",
    },
    "overflow-counts-as-clean": {
        "en": "counts every step toward growth_interval, overflows included; only clean steps count, and an overflow restarts the count",
        "id": "menghitung semua langkah untuk growth_interval, termasuk yang overflow; hanya langkah bersih yang dihitung, dan overflow memulai hitungan dari nol",
    },
    "count-kept-after-growth": {
        "en": "keeps counting after a growth, so the scale doubles on every further clean step; a growth restarts the count",
        "id": "terus menghitung setelah skala naik, sehingga skala berlipat di setiap langkah bersih berikutnya; kenaikan skala memulai hitungan dari nol",
    },
    "scale-fixed": {
        "en": "thinks the scale stays at init_scale unless set by hand",
        "id": "mengira skala tetap di init_scale kecuali diubah manual",
    },
    "clip-sees-unscaled": {
        "en": "thinks clip_grad_norm_ sees the true gradients; before unscale_ they are still multiplied by the scale",
        "id": "mengira clip_grad_norm_ melihat gradien asli; sebelum unscale_ gradien masih dikali skala",
    },
    "clip-before-unscale": {
        "en": "clips the scaled gradients (clip before unscale_), which shrinks them by the scale",
        "id": "memotong gradien yang masih di-scale (clip sebelum unscale_), sehingga gradien mengecil sebesar skalanya",
    },
    "clip-sets-norm": {
        "en": "thinks clipping always sets the norm to max_norm; it only shrinks norms above it",
        "id": "mengira clipping selalu membuat norm sama dengan max_norm; clipping hanya mengecilkan norm di atasnya",
    },
    "clip-not-applied": {
        "en": "ignores the clipping, as if the norm passed through unchanged",
        "id": "mengabaikan clipping, seolah-olah norm lewat tanpa diubah",
    },
    "unscaled-twice": {
        "en": "divides by the scale twice, as if scaler.step unscaled again after unscale_; it does not",
        "id": "membagi dengan skala dua kali, seolah-olah scaler.step melakukan unscale lagi setelah unscale_; tidak demikian",
    },
    "still-scaled": {
        "en": "forgets that unscale_ divides the gradients by the scale",
        "id": "lupa bahwa unscale_ membagi gradien dengan skalanya",
    },
    "fp32-master": {
        "en": "gives the result an fp32 master copy would reach; the {fmt} weight itself rounds every step",
        "id": "memberi hasil yang dicapai salinan master fp32; bobot {fmt} itu sendiri dibulatkan setiap langkah",
    },
    "updates-always-vanish": {
        "en": "thinks every small update vanishes in {fmt}; updates above half a spacing still move the weight",
        "id": "mengira setiap update kecil hilang di {fmt}; update di atas setengah jarak antar-nilai tetap menggeser bobot",
    },
    "eps-survives": {
        "en": "computes as if eps kept its value; in fp16 it becomes {eps16}",
        "id": "menghitung seolah-olah eps tetap bernilai sama; di fp16 eps menjadi {eps16}",
    },
    "forgot-sqrt": {
        "en": "divides by v instead of by its square root",
        "id": "membagi dengan v, bukan dengan akar kuadratnya",
    },
    "eps-inside-sqrt": {
        "en": "puts eps under the square root, sqrt(v + eps); this code adds it after: sqrt(v) + eps",
        "id": "menaruh eps di dalam akar, sqrt(v + eps); kode ini menambahkannya sesudahnya: sqrt(v) + eps",
    },
    "eps-vanishes": {
        "en": "thinks eps = {eps} rounds to 0 in fp16; it is stored as {eps16}",
        "id": "mengira eps = {eps} dibulatkan menjadi 0 di fp16; nilainya disimpan sebagai {eps16}",
    },
    "update-is-zero": {
        "en": "thinks a vanished denominator or moment makes the update 0",
        "id": "mengira penyebut atau momen yang hilang membuat update-nya 0",
    },
    "zero-over-zero": {
        "en": "treats 0/0 as 0; it is NaN",
        "id": "menganggap 0/0 sama dengan 0; hasilnya NaN",
    },
    "division-by-zero-nan": {
        "en": "thinks a nonzero number divided by zero is NaN; it is inf",
        "id": "mengira bilangan bukan nol dibagi nol menghasilkan NaN; hasilnya inf",
    },
    "saturates-fp16": {
        "en": "thinks fp16 clamps a too-large result to 65504; it becomes inf",
        "id": "mengira fp16 menjepit hasil yang terlalu besar ke 65504; hasilnya inf",
    },
    **TRAINING,
}


def miss(name: str, text: str | Text, **fields: Any) -> Option:
    """A wrong option standing for misconception ``name``; ``fields`` fill its text."""
    template = MISCONCEPTIONS[name]
    texts = both(text) if isinstance(text, str) else dict(text)
    return Option(
        text=texts,
        misconception=name,
        why={lang: template[lang].format(**_in(fields, lang)) for lang in LANGS},
    )


def _in(fields: dict[str, Any], lang: str) -> dict[str, Any]:
    """Field values for one language (a field may be a {lang: text} dict)."""
    return {k: v[lang] if isinstance(v, dict) else v for k, v in fields.items()}
