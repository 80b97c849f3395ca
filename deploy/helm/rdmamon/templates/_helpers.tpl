{{- define "rdmamon.influxSecretEnv" -}}
- name: RDMAMON_INFLUX_USERNAME
  valueFrom:
    secretKeyRef: {name: {{ .Values.influx.secretName }}, key: username, optional: true}
- name: RDMAMON_INFLUX_PASSWORD
  valueFrom:
    secretKeyRef: {name: {{ .Values.influx.secretName }}, key: password, optional: true}
- name: RDMAMON_INFLUX_TOKEN
  valueFrom:
    secretKeyRef: {name: {{ .Values.influx.secretName }}, key: token, optional: true}
{{- end }}
{{- define "rdmamon.securityContext" -}}
runAsNonRoot: true
runAsUser: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: {drop: [ALL]}
{{- end }}
{{- define "rdmamon.kafkaClient" -}}
kafka.security.protocol={{ .Values.kafka.securityProtocol }}
kafka.sasl.mechanism={{ .Values.kafka.saslMechanism }}
{{- end }}
