// Package kubernetes holds candor's Kubernetes manifests; this test is its only Go file. No
// cluster is reachable where candor is developed, so the manifests are decoded strictly (an unknown
// or misspelt field fails) into the Kubernetes API's own types (k8s.io/api), and what makes the
// sharded run work is checked: Indexed Jobs with completions = parallelism = --shards, the
// database URL from the Secret, the shared start and results volume, and command lines made of
// flags candor has (read from the help of a candor built from this tree).
package kubernetes

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decode reads file (one document) strictly into out: unknown fields and duplicate keys fail.
func decode(t *testing.T, file string, out any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(b, &tm); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := yaml.UnmarshalStrict(b, out); err != nil {
		t.Fatalf("%s does not decode strictly into %T: %v", file, out, err)
	}
	if bytes.Contains(b, []byte("\n---")) {
		t.Fatalf("%s holds several documents; keep one per file", file)
	}
}

// candorHelp builds candor from this tree once and returns `candor ARGS... --help`.
func candorHelp(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append(args, "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("candor %s --help: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func buildCandor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "candor")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/candor")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ../../cmd/candor: %v\n%s", err, out)
	}
	return bin
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// checkFlags checks that every --flag of args is one of candor's for that command (its help lists
// it), and that every $(VAR) the args use is defined in the container's env (Kubernetes expands
// only those).
func checkFlags(t *testing.T, name string, args []string, help string, c corev1.Container) {
	t.Helper()
	env := map[string]bool{}
	for _, e := range c.Env {
		env[e.Name] = true
	}
	for _, a := range args {
		for _, m := range varRef.FindAllStringSubmatch(a, -1) {
			if !env[m[1]] {
				t.Errorf("%s: %q uses $(%s), which the container's env does not define", name, a, m[1])
			}
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		flag, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !regexp.MustCompile(`(?m)^\s+(-\w, )?--` + regexp.QuoteMeta(flag) + `\b`).MatchString(help) {
			t.Errorf("%s: --%s is not a flag of this candor command", name, flag)
		}
	}
}

// flagValue is --name=VALUE's value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestManifests(t *testing.T) {
	var secret corev1.Secret
	decode(t, "secret.example.yaml", &secret)
	if secret.Kind != "Secret" || secret.StringData["url"] == "" {
		t.Fatalf("secret.example.yaml: want a Secret with stringData.url, got kind %q, keys %v", secret.Kind, secret.StringData)
	}
	var pvc corev1.PersistentVolumeClaim
	decode(t, "results-pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || len(pvc.Spec.AccessModes) == 0 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("results-pvc.yaml: want a ReadWriteMany PersistentVolumeClaim (every shard and the merge mount it), got %v %v", pvc.Kind, pvc.Spec.AccessModes)
	}
	var cm corev1.ConfigMap
	decode(t, "run-config.yaml", &cm)
	if cm.Kind != "ConfigMap" || cm.Data["START_AT"] == "" || cm.Data["RUN_ID"] == "" {
		t.Fatalf("run-config.yaml: want a ConfigMap with START_AT and RUN_ID, got %v %v", cm.Kind, cm.Data)
	}

	bin := buildCandor(t)
	jobs := map[string]struct {
		indexed bool
		cmd     []string // the candor command whose flags the args use
	}{
		"load-job.yaml":  {true, []string{"tpcc", "load"}},
		"run-job.yaml":   {true, []string{"tpcc", "run"}},
		"merge-job.yaml": {false, []string{"merge"}},
	}
	for file, want := range jobs {
		t.Run(file, func(t *testing.T) {
			var job batchv1.Job
			decode(t, file, &job)
			if job.Kind != "Job" || job.APIVersion != "batch/v1" {
				t.Fatalf("kind %s %s, want a batch/v1 Job", job.APIVersion, job.Kind)
			}
			spec := job.Spec
			if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
				t.Fatalf("completions %v and parallelism %v must be given and equal", spec.Completions, spec.Parallelism)
			}
			if len(spec.Template.Spec.Containers) != 1 {
				t.Fatalf("%d containers, want candor's one", len(spec.Template.Spec.Containers))
			}
			pod := spec.Template.Spec
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %q: a shard restarted in place would measure a window of its own; use Never", pod.RestartPolicy)
			}
			if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
				t.Errorf("the pod must run as non-root (securityContext.runAsNonRoot)")
			}
			c := pod.Containers[0]
			// The database URL comes from the Secret, never from the manifest.
			fromSecret := false
			for _, e := range c.Env {
				if e.Name == "CANDOR_DB" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil &&
					e.ValueFrom.SecretKeyRef.Name == secret.Name && secret.StringData[e.ValueFrom.SecretKeyRef.Key] != "" {
					fromSecret = true
				}
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					if ref := e.ValueFrom.ConfigMapKeyRef; ref.Name != cm.Name || cm.Data[ref.Key] == "" {
						t.Errorf("env %s refers to ConfigMap %s key %s, which run-config.yaml does not hold", e.Name, ref.Name, ref.Key)
					}
				}
			}
			if !fromSecret {
				t.Errorf("no env CANDOR_DB from the Secret %s's url", secret.Name)
			}
			if strings.Contains(strings.Join(append(c.Command, c.Args...), " "), "://") {
				t.Errorf("a database URL is written in the command line: take it from the Secret")
			}
			help := candorHelp(t, bin, want.cmd...)
			args := c.Args
			if want.indexed {
				if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
					t.Fatalf("completionMode %v, want Indexed (each pod gets its shard index in JOB_COMPLETION_INDEX)", spec.CompletionMode)
				}
				if len(c.Command) != 0 {
					t.Errorf("command %v overrides the image's entrypoint (candor)", c.Command)
				}
				if !slicesEqualPrefix(args, want.cmd) {
					t.Fatalf("args %v do not start with candor %v", args, want.cmd)
				}
				n, ok := flagValue(args, "shards")
				if !ok || n != strconv.Itoa(int(*spec.Completions)) {
					t.Errorf("--shards=%s, want the Job's completions %d", n, *spec.Completions)
				}
				checkFlags(t, file, args[len(want.cmd):], help, c)
			} else {
				// The merge Job runs through a shell (a glob of the shards' directories).
				line := strings.Join(args, " ")
				fields := strings.Fields(strings.NewReplacer(`"`, "").Replace(line))
				i := indexOf(fields, "candor")
				if i < 0 || i+1 >= len(fields) || fields[i+1] != "merge" {
					t.Fatalf("the merge Job does not run candor merge: %q", line)
				}
				var flags []string
				for _, f := range fields[i+2:] {
					if strings.HasPrefix(f, "--") {
						flags = append(flags, f)
					}
				}
				checkFlags(t, file, flags, help, corev1.Container{})
				for _, need := range []string{"--out", "--check", "--db"} {
					if indexOf(flags, need) < 0 {
						t.Errorf("the merge Job lacks %s", need)
					}
				}
			}
			if file == "run-job.yaml" {
				for _, need := range []string{"start-at", "out"} {
					if _, ok := flagValue(args, need); !ok {
						t.Errorf("the run Job lacks --%s", need)
					}
				}
				if out, _ := flagValue(args, "out"); !strings.Contains(out, "$(SHARD_INDEX)") {
					t.Errorf("--out=%s: each shard needs a directory of its own (…/shard-$(SHARD_INDEX))", out)
				}
			}
			if file != "load-job.yaml" {
				mounted := false
				for _, v := range pod.Volumes {
					if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
						for _, m := range c.VolumeMounts {
							mounted = mounted || m.Name == v.Name && m.MountPath == "/results"
						}
					}
				}
				if !mounted {
					t.Errorf("the results volume (PVC %s) is not mounted at /results", pvc.Name)
				}
			}
		})
	}
}

func slicesEqualPrefix(s, prefix []string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range prefix {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
