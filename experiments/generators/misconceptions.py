"""The named misconceptions distractors stand for (torch-free).

Each entry is a one-line description per language with ``{fields}`` a template fills
in; :func:`miss` turns it into a wrong :class:`Option`. The names are stable (they are
recorded with each instance, so the bot can count which misconceptions members hold).
"""

from __future__ import annotations

from typing import Any

from experiments.generators.instance import LANGS, Option, Text, both

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
    # ---- accumulation and batches
    "forgot-world-size": {
        "en": "forgets the data-parallel world size (the batch is per GPU)",
        "id": "lupa jumlah GPU data-parallel (ukuran batch itu per GPU)",
    },
    "forgot-accumulation": {
        "en": "forgets the accumulated micro-batches",
        "id": "lupa micro-batch yang diakumulasi",
    },
    "micro-batch-only": {
        "en": "counts one micro-batch on one GPU only",
        "id": "hanya menghitung satu micro-batch di satu GPU",
    },
    "off-by-one-accumulation": {
        "en": "counts one accumulation step too many",
        "id": "menghitung satu langkah akumulasi terlalu banyak",
    },
    "world-size-twice": {
        "en": "multiplies by the number of GPUs twice",
        "id": "mengalikan dengan jumlah GPU dua kali",
    },
    "forgot-divide-by-n": {
        "en": "forgets that each loss was divided by N",
        "id": "lupa bahwa tiap loss dibagi N",
    },
    "assumed-divide-by-n": {
        "en": "assumes the loss was divided by N; this loop does not divide",
        "id": "mengira loss sudah dibagi N; loop ini tidak membaginya",
    },
    "last-micro-batch-only": {
        "en": "keeps only the last micro-batch's gradient, as if zero_grad() ran every micro-batch",
        "id": "hanya menyimpan gradien micro-batch terakhir, seolah-olah zero_grad() dipanggil tiap micro-batch",
    },
    "grads-accumulate-anyway": {
        "en": "forgets that zero_grad() inside the loop erases the earlier micro-batches' gradients",
        "id": "lupa bahwa zero_grad() di dalam loop menghapus gradien micro-batch sebelumnya",
    },
    "last-only-division-wrong": {
        "en": "keeps only the last micro-batch's gradient, as if it were zeroed every "
        "micro-batch, and {division}",
        "id": "hanya menyimpan gradien micro-batch terakhir, seolah-olah gradien dinolkan tiap "
        "micro-batch, dan {division}",
    },
    "accumulate-anyway-division-wrong": {
        "en": "forgets that zeroing w.grad inside the loop erases the earlier micro-batches' "
        "gradients, and {division}",
        "id": "lupa bahwa menolkan w.grad di dalam loop menghapus gradien micro-batch "
        "sebelumnya, dan {division}",
    },
    "divided-twice": {
        "en": "divides by N twice",
        "id": "membagi dengan N dua kali",
    },
    "scaled-by-n": {
        "en": "multiplies by N instead of dividing",
        "id": "mengalikan dengan N, bukan membagi",
    },
    "last-logged-loss": {
        "en": "reports the last micro-batch's loss, as logging loss.item() inside the loop does",
        "id": "melaporkan loss micro-batch terakhir, seperti mencatat loss.item() di dalam loop",
    },
    "first-logged-loss": {
        "en": "reports the first micro-batch's loss, as logging only at the start of an accumulation window does",
        "id": "melaporkan loss micro-batch pertama, seperti mencatat hanya di awal window akumulasi",
    },
    "largest-micro-batch-loss": {
        "en": "takes the loss of the micro-batch with the most tokens, as if it stood for the batch; the others count too",
        "id": "mengambil loss micro-batch dengan token terbanyak, seolah-olah mewakili batch; micro-batch lain juga dihitung",
    },
    "summed-means": {
        "en": "adds the micro-batch means without dividing by the number of micro-batches",
        "id": "menjumlahkan rata-rata micro-batch tanpa membaginya dengan banyaknya micro-batch",
    },
    "extra-final-step": {
        "en": "adds a final step at the end of the epoch even though no micro-batches are left over",
        "id": "menambah satu step di akhir epoch walaupun tidak ada micro-batch yang tersisa",
    },
    "off-by-one": {
        "en": "is off by one",
        "id": "meleset satu",
    },
    "per-micro-batch-means": {
        "en": "averages the per-micro-batch means, which weights a short micro-batch like a long one",
        "id": "merata-ratakan rata-rata per micro-batch, sehingga micro-batch pendek berbobot sama dengan yang panjang",
    },
    "divided-by-micro-batches": {
        "en": "divides the summed token loss by the number of micro-batches instead of the number of tokens",
        "id": "membagi jumlah loss token dengan banyaknya micro-batch, bukan banyaknya token",
    },
    "linear-rule-for-adam": {
        "en": "applies the linear rule (multiply by the batch ratio); the square-root rule multiplies by its square root",
        "id": "memakai aturan linear (kalikan dengan rasio batch); aturan akar kuadrat mengalikan dengan akar rasionya",
    },
    "sqrt-rule-for-sgd": {
        "en": "applies the square-root rule (multiply by the square root of the batch ratio); the linear rule multiplies by the ratio itself",
        "id": "memakai aturan akar kuadrat (kalikan dengan akar rasio batch); aturan linear mengalikan dengan rasionya sendiri",
    },
    "lr-unchanged": {
        "en": "keeps the learning rate when the batch size changes",
        "id": "mempertahankan learning rate walaupun ukuran batch berubah",
    },
    "inverse-scaling": {
        "en": "scales the learning rate the wrong way (down for a larger batch)",
        "id": "mengubah learning rate ke arah yang salah (turun untuk batch yang lebih besar)",
    },
    "drops-leftover-window": {
        "en": "drops the last, incomplete accumulation window instead of stepping on it",
        "id": "membuang window akumulasi terakhir yang tidak penuh, padahal tetap di-step",
    },
    "step-per-micro-batch": {
        "en": "counts one optimizer step per micro-batch",
        "id": "menghitung satu langkah optimizer per micro-batch",
    },
    "drops-last-micro-batch": {
        "en": "drops the last, short micro-batch as if drop_last=True",
        "id": "membuang micro-batch terakhir yang tidak penuh, seolah-olah drop_last=True",
    },
    # ---- memory
    "forgot-master-weights": {
        "en": "forgets the fp32 master weights (4 bytes per parameter)",
        "id": "lupa master weight fp32 (4 byte per parameter)",
    },
    "states-in-fp16": {
        "en": "stores master weights and Adam moments in fp16 (2 bytes each)",
        "id": "menyimpan master weight dan momen Adam dalam fp16 (masing-masing 2 byte)",
    },
    "weights-and-grads-only": {
        "en": "counts only the fp16 weights and gradients, not the optimizer states",
        "id": "hanya menghitung bobot dan gradien fp16, tanpa state optimizer",
    },
    "fp32-grads-too": {
        "en": "adds an fp32 copy of the gradients as well (20 bytes per parameter)",
        "id": "menambahkan salinan gradien fp32 juga (20 byte per parameter)",
    },
    "gib-not-gb": {
        "en": "divides by 2^30 (GiB) instead of 10^9 (GB)",
        "id": "membagi dengan 2^30 (GiB), bukan 10^9 (GB)",
    },
    "no-sharding": {
        "en": "shards nothing, as plain DDP does",
        "id": "tidak membagi apa pun, seperti DDP biasa",
    },
    "zero-1-sharding": {
        "en": "shards only the optimizer states (that is ZeRO stage 1)",
        "id": "hanya membagi state optimizer (itu ZeRO tahap 1)",
    },
    "zero-2-sharding": {
        "en": "shards optimizer states and gradients (that is ZeRO stage 2)",
        "id": "membagi state optimizer dan gradien (itu ZeRO tahap 2)",
    },
    "zero-3-sharding": {
        "en": "shards the weights as well (that is ZeRO stage 3)",
        "id": "membagi bobotnya juga (itu ZeRO tahap 3)",
    },
    "accumulation-saves-nothing": {
        "en": "thinks accumulation does not reduce memory; the activations of one micro-batch are all that is kept",
        "id": "mengira akumulasi tidak mengurangi memori; yang disimpan hanya aktivasi satu micro-batch",
    },
    "accumulation-shrinks-states": {
        "en": "divides the model states by N too; weights, gradients and Adam states do not shrink with accumulation",
        "id": "ikut membagi model state dengan N; bobot, gradien, dan state Adam tidak mengecil dengan akumulasi",
    },
    "forgot-model-states": {
        "en": "counts the activations only, forgetting weights, gradients and Adam states",
        "id": "hanya menghitung aktivasi, lupa bobot, gradien, dan state Adam",
    },
    "bits-not-bytes": {
        "en": "counts bits instead of bytes",
        "id": "menghitung bit, bukan byte",
    },
    "assumed-fp32": {
        "en": "assumes 4 bytes per element, as for fp32",
        "id": "mengira 4 byte per elemen, seperti fp32",
    },
    "wrong-element-size": {
        "en": "uses {size} bytes per element; {dtype} takes {actual}",
        "id": "memakai {size} byte per elemen; {dtype} memakai {actual}",
    },
    # ---- pipeline
    "bubble-over-micro-batches": {
        "en": "divides the p−1 idle slots by the m busy ones (Megatron-LM's bubble time fraction) instead of by the schedule's m+p−1 slots",
        "id": "membagi p−1 slot menganggur dengan m slot sibuk (bubble time fraction Megatron-LM), bukan dengan m+p−1 slot jadwalnya",
    },
    "bubble-fill-only": {
        "en": "counts only the fill at the start (half of each stage's p−1 idle slots on average); stages also idle while the pipeline drains",
        "id": "hanya menghitung pengisian di awal (rata-rata separuh dari p−1 slot menganggur tiap stage); stage juga menganggur saat pipeline dikosongkan",
    },
    "bubble-ignores-micro-batches": {
        "en": "ignores the micro-batches: (p−1)/p is the bubble with a single micro-batch",
        "id": "mengabaikan micro-batch: (p−1)/p adalah bubble dengan satu micro-batch saja",
    },
    "bubble-off-by-one": {
        "en": "counts p idle slots per stage instead of p−1",
        "id": "menghitung p slot menganggur per stage, bukan p−1",
    },
    "bubble-one-slot": {
        "en": "counts one idle slot per stage instead of p−1",
        "id": "menghitung satu slot menganggur per stage, bukan p−1",
    },
    # ---- autocast
    "autocast-casts-everything": {
        "en": "thinks autocast runs every op in {low}; ops outside its lower-precision list keep float32",
        "id": "mengira autocast menjalankan semua op dalam {low}; op di luar daftar presisi rendahnya tetap float32",
    },
    "autocast-only-storage": {
        "en": "thinks autocast leaves op outputs in float32; ops on its lower-precision list return {low}",
        "id": "mengira keluaran op tetap float32 di bawah autocast; op dalam daftar presisi rendahnya menghasilkan {low}",
    },
    "autocast-no-promotion": {
        "en": "forgets type promotion: `{expr}` combines the {low} product with the float32 c, which gives float32",
        "id": "lupa promosi tipe: `{expr}` menggabungkan hasil kali {low} dengan c yang float32, sehingga hasilnya float32",
    },
    "autocast-lists-swapped": {
        "en": "has the two the wrong way round: `{lowered}` is on CPU autocast's lower-precision list and returns {low}, `{kept}` is not and keeps float32",
        "id": "tertukar: `{lowered}` ada di daftar presisi rendah autocast CPU dan menghasilkan {low}, `{kept}` tidak ada dan tetap float32",
    },
    "autocast-default-dtype": {
        "en": "assumes autocast uses a default dtype ({default}); the code passes dtype={low}",
        "id": "mengira autocast memakai dtype bawaan ({default}); kode ini memberi dtype={low}",
    },
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
