"""The named misconceptions of the training templates: batches and accumulation, memory,
the pipeline and autocast (torch-free; :mod:`.misconceptions` merges them with the
number-format and loss-scaling ones, and describes the format).
"""

from __future__ import annotations

from experiments.generators.instance import Text

TRAINING: dict[str, Text] = {
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
    # No template offers it any more; kept for the instances stored with its name.
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
    # No template offers it any more; kept for the instances stored with its name.
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
        "en": "uses {size} per element; {dtype} takes {actual}",
        "id": "memakai {size} per elemen; {dtype} memakai {actual}",
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
    # No template offers it any more; kept for the instances stored with its name.
    "autocast-default-dtype": {
        "en": "assumes autocast uses a default dtype ({default}); the code passes dtype={low}",
        "id": "mengira autocast memakai dtype bawaan ({default}); kode ini memberi dtype={low}",
    },
}
